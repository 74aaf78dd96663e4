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

// Resolves --op against the store's ops and sets `data_op` to the op whose rows are read.
// `op` empty: the rows of the store's only op (InputError when it holds several), learnt by
// learning_operation(): the op itself when every kernel is its own, else the op that learns
// from any op's data (imported rows, such as MIOpen's convolutions under conv). That op named
// on a store without its own data: the store's only op's rows. An op named for rows of its own
// whose kernels were imported: InputError pointing to that learner.
void choose_ops(const data::Store& store, std::string& op, std::string& data_op);

}  // namespace kselect::cli
