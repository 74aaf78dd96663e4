#pragma once
// Writing CSV cells (RFC 4180): problem texts such as "m=1,n=2,k=3" hold commas.
#include <string>

namespace kselect {

// `s` as one CSV cell: quoted, with doubled quotes, when it holds a comma, quote or line break.
std::string csv_quote(const std::string& s);

}  // namespace kselect
