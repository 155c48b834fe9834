// The driver against a scripted device (a DeviceBus of its own, no simulation): probing, context
// windows, job submission (the registers it programs), completion by interrupt, a lost
// interrupt found by polling, a rejected job and a silent NPU, and device memory allocation.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "arch/error.h"
#include "arch/isa.h"
#include "arch/register_map.h"
#include "driver/device_memory.h"
#include "driver/driver.h"

namespace npusim::driver {
namespace {

/// A device that answers a doorbell as `behaviour` says, after `jobCycles`.
class ScriptedDevice : public DeviceBus {
public:
    enum class Behaviour { Finish, FinishWithoutInterrupt, Reject, Hang };
    Behaviour behaviour = Behaviour::Finish;
    uint64_t jobCycles = 500;
    std::map<uint32_t, uint32_t> registers{{regs::kDeviceId, regs::kDeviceIdValue}};
    std::map<uint64_t, std::byte> memory;
    std::map<uint64_t, uint64_t> timedOnly;  ///< bytes written for their time alone, by address
    uint64_t now = 0;
    bool interrupt = false;

    uint32_t readRegister(uint32_t offset) override { return registers[offset]; }
    void writeRegister(uint32_t offset, uint32_t value) override {
        if (offset == regs::kIrqStatus) {  // write one to clear
            registers[offset] &= ~value;
            interrupt = registers[offset] != 0;
            return;
        }
        registers[offset] = value;
        if (offset == regs::kDoorbell) ring();
    }
    void writeMemory(uint64_t address, std::span<const std::byte> bytes) override {
        for (size_t i = 0; i < bytes.size(); ++i) memory[address + i] = bytes[i];
    }
    void writeMemoryTimingOnly(uint64_t address, uint64_t bytes) override { timedOnly[address] += bytes; }
    void readMemory(uint64_t address, std::span<std::byte> bytes) override {
        for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = memory[address + i];
    }
    bool waitForInterrupt(uint64_t timeoutCycles) override {
        now += interrupt ? 0 : timeoutCycles;
        return interrupt;
    }
    uint64_t nowCycles() override { return now; }
    void compute(uint64_t cycles) override { now += cycles; }

private:
    void ring() {
        if (behaviour == Behaviour::Hang) {
            registers[regs::kStatus] = static_cast<uint32_t>(regs::Status::Running);
            return;
        }
        const bool reject = behaviour == Behaviour::Reject;
        registers[regs::kStatus] = static_cast<uint32_t>(reject ? regs::Status::Error : regs::Status::Done);
        registers[regs::kJobCyclesLo] = static_cast<uint32_t>(jobCycles);
        registers[regs::kErrorCode] = static_cast<uint32_t>(reject ? regs::ErrorCode::IllegalOpcode : regs::ErrorCode::None);
        registers[regs::kErrorCommand] = reject ? 3 : 0;
        if (behaviour != Behaviour::FinishWithoutInterrupt) {
            registers[regs::kIrqStatus] |= reject ? regs::kIrqJobError : regs::kIrqJobDone;
            interrupt = true;
        }
    }
};

constexpr uint64_t kBase = 0x8000'0000, kSize = 1 << 24;

std::vector<std::byte> commands(size_t count) { return std::vector<std::byte>(count * isa::kCommandBytes, std::byte{0x5a}); }

TEST(Driver, OpensOnlyAnNpu) {
    ScriptedDevice device;
    Driver driver(device, kBase, kSize);
    driver.open();
    EXPECT_EQ(device.registers[regs::kIrqMask], regs::kIrqJobDone | regs::kIrqJobError);
    device.registers[regs::kDeviceId] = 0x1234;
    try {
        driver.open();
        FAIL() << "a device that is no NPU was opened";
    } catch (const RunError& e) {
        EXPECT_STREQ(e.what(), "no NPU found: device id register reads 4660");
    }
}

TEST(Driver, ContextsConfineCopiesToTheirWindows) {
    ScriptedDevice device;
    Driver driver(device, kBase, kSize);
    const ContextId a = driver.createContext(8192), b = driver.createContext(4096);
    const std::vector<std::byte> bytes(16, std::byte{7});
    driver.write(b, 4080, bytes);
    std::vector<std::byte> back(16);
    driver.read(b, 4080, back);
    EXPECT_EQ(back, bytes);
    EXPECT_THROW(driver.write(b, 4081, bytes), std::out_of_range);
    EXPECT_THROW(driver.read(a, 8192, back), std::out_of_range);
    // A write for its time alone stores nothing, and stays inside the window too.
    const size_t stored = device.memory.size();
    driver.writeTimingOnly(b, 4064, 32);
    EXPECT_EQ(device.memory.size(), stored);
    ASSERT_EQ(device.timedOnly.size(), 1u);
    EXPECT_EQ(device.timedOnly.begin()->second, 32u);
    EXPECT_THROW(driver.writeTimingOnly(b, 4065, 32), std::out_of_range);
    driver.destroyContext(a);
    EXPECT_THROW(driver.write(a, 0, bytes), std::out_of_range);
}

TEST(Driver, RunsAJobAndProgramsItsRegisters) {
    ScriptedDevice device;
    Driver driver(device, kBase, kSize);
    driver.open();
    const ContextId context = driver.createContext(1 << 16);
    const CommandBuffer buffer = driver.uploadCommands(commands(3));
    EXPECT_EQ(buffer.commands, 3u);
    device.now = 1000;
    const JobResult result = driver.run(context, buffer, 1'000'000);
    EXPECT_EQ(result.startCycle, 1000u);
    EXPECT_EQ(result.cycles, 500u);
    EXPECT_EQ(device.registers[regs::kJobAddrLo], static_cast<uint32_t>(buffer.address));
    EXPECT_EQ(device.registers[regs::kJobCommandCount], 3u);
    EXPECT_EQ(device.registers[regs::kContextId], context);
    EXPECT_EQ(device.registers[regs::kContextSizeLo], 1u << 16);
    EXPECT_EQ(device.registers[regs::kWatchdogLo], 1'000'000u);
    EXPECT_EQ(device.registers[regs::kIrqStatus], 0u);  // acknowledged
    EXPECT_EQ(driver.lostInterrupts(), 0u);
}

TEST(Driver, FindsAJobWhoseInterruptWasLostByPolling) {
    ScriptedDevice device;
    device.behaviour = ScriptedDevice::Behaviour::FinishWithoutInterrupt;
    Driver driver(device, kBase, kSize);
    const JobResult result = driver.run(driver.createContext(4096), commands(1), 10'000'000);
    EXPECT_EQ(result.cycles, 500u);
    EXPECT_EQ(driver.lostInterrupts(), 1u);
}

TEST(Driver, NamesTheFirmwaresErrorAndTheHardwaresExplanation) {
    ScriptedDevice device;
    device.behaviour = ScriptedDevice::Behaviour::Reject;
    Driver driver(device, kBase, kSize);
    driver.explainFaultsWith([] { return std::string("unit stopped"); });
    try {
        driver.run(driver.createContext(4096), commands(4), 1'000'000);
        FAIL() << "a rejected job ran";
    } catch (const RunError& e) {
        EXPECT_STREQ(e.what(), ("NPU rejected the job: " + std::string(regs::errorCodeName(regs::ErrorCode::IllegalOpcode)) +
                                " at command 3: unit stopped").c_str());
    }
    // The one-off job's command buffer was released: all of device memory but the window is free.
    EXPECT_EQ(driver.largestFreeBlock(), kSize - 4096);
}

TEST(Driver, GivesUpOnAnNpuThatNeverAnswers) {
    ScriptedDevice device;
    device.behaviour = ScriptedDevice::Behaviour::Hang;
    Driver driver(device, kBase, kSize);
    EXPECT_THROW(driver.run(driver.createContext(4096), commands(1), 2'000'000), RunError);
    // Its own timeout, beyond the firmware's watchdog: the budget, an eighth more and the slack.
    EXPECT_GE(device.now, 2'000'000u + 250'000u);
}

TEST(DeviceMemory, AllocatesFirstFitPageAlignedAndReusesFreedBlocks) {
    DeviceMemory memory(kBase, 64 * 1024);
    const uint64_t a = memory.allocate(100), b = memory.allocate(5000), c = memory.allocate(4096);
    EXPECT_EQ(a, kBase);
    EXPECT_EQ(b, kBase + 4096);
    EXPECT_EQ(c, kBase + 3 * 4096);
    EXPECT_EQ(memory.bytesInUse(), 4u * 4096);
    memory.release(b);
    EXPECT_EQ(memory.allocate(4096), kBase + 4096);  // the first gap that fits
    EXPECT_EQ(memory.largestFree(), 64u * 1024 - 4 * 4096);
    EXPECT_THROW(memory.allocate(64 * 1024), RunError);
}

}  // namespace
}  // namespace npusim::driver
