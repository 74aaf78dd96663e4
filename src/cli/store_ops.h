#pragma once
// What `kselect train` and `kselect features` read from a measurement store before building
// features: which op's rows, through which feature engine, on which hardware.
#include <string>

#include "core/hardware.h"
#include "data/store.h"

namespace kselect::cli {

// The hardware of the newest run of `op` in the store, else this machine's: hw_* features
// describe the machine that measured the data.
HardwareProfile run_hardware(const data::Store& store, const std::string& op);

// Resolves --op against the store's ops. `op` empty: the store's only op (InputError when it
// holds several). An op that learns from any op's data (Capabilities::learns_from_any_op) on a
// store without its own data: the store's only op, read through that op's features. Sets `data_op`
// to the op whose rows are read.
void choose_ops(const data::Store& store, std::string& op, std::string& data_op);

}  // namespace kselect::cli
