// From a co-simulated run to its report: the record reports are built from, and the report with
// what the run used (its shape bucket, RTL blocks, injected faults, host timing), for `npusim
// run` and sweep points alike.
#pragma once

#include "arch/arch_config.h"
#include "reports/report.h"
#include "sim/cosim.h"

namespace npusim::sim {

/// The record of `result` (which must outlive it) on `config`.
reports::RunRecord runRecord(const ArchConfig& config, const CoSimResult& result);
/// The report of `result` on `config`; `timingOnly` when the run computed no values.
reports::Report buildRunReport(const ArchConfig& config, const CoSimResult& result, bool timingOnly);

}  // namespace npusim::sim
