// CPU kernels run through the runtime's JIT.
#include "host_kernel_test_support.h"

#include <gtest/gtest.h>

#include <random>

#include "compiler/cpu/host_kernels.h"
#include "compiler/cpu/llvm_emitter.h"
#include "compiler/graph/interpreter.h"
#include "graph_test_support.h"
#include "runtime/cpu_code.h"

namespace npusim::compiler::testing {
namespace {

/// The kernel's buffers: the inputs (graph inputs from `inputs`, constants from the graph),
/// then zeroed outputs.
std::vector<Tensor> kernelTensors(const Graph& graph, const cpu::HostKernel& host,
                                  const std::map<std::string, Tensor>& inputs) {
    std::vector<Tensor> tensors;
    for (ValueId id : host.inputs) {
        const Value& value = graph.value(id);
        tensors.push_back(value.constant ? *value.constant : inputs.at(value.name));
    }
    for (ValueId id : host.outputs) tensors.push_back(Tensor::zeros(graph.value(id).dtype, graph.value(id).shape));
    return tensors;
}

int64_t run(const cpu::HostKernel& host, std::vector<Tensor>& tensors) {
    const runtime::CpuCode code(bytesOf(cpu::emitLlvmModule({host.kernel}, "test")));
    std::vector<void*> buffers;
    for (Tensor& tensor : tensors) buffers.push_back(tensor.bytes.data());
    return code.kernel(host.kernel.name)(buffers.data());
}

}  // namespace

std::span<const std::byte> bytesOf(const std::string& text) { return std::as_bytes(std::span(text)); }

void expectKernelMatchesReference(const Graph& graph, const std::map<std::string, Tensor>& inputs) {
    const std::optional<cpu::HostKernel> host = cpu::hostKernelFor(graph, graph.nodes.at(0), 0);
    ASSERT_TRUE(host) << "no CPU kernel";
    SCOPED_TRACE(cpu::printKernel(host->kernel));
    std::vector<Tensor> tensors = kernelTensors(graph, *host, inputs);
    ASSERT_EQ(run(*host, tensors), 0) << "the kernel failed";

    const std::vector<Tensor> golden = interpretGraph(graph, inputs);
    ASSERT_EQ(host->outputs.size(), golden.size());
    for (size_t i = 0; i < golden.size(); ++i) {
        expectTensorNear(tensors[host->inputs.size() + i], golden[i], 1e-5);
    }
}

int64_t kernelStatus(const Graph& graph, const std::map<std::string, Tensor>& inputs) {
    const std::optional<cpu::HostKernel> host = cpu::hostKernelFor(graph, graph.nodes.at(0), 0);
    EXPECT_TRUE(host) << "no CPU kernel";
    if (!host) return -1;
    std::vector<Tensor> tensors = kernelTensors(graph, *host, inputs);
    return run(*host, tensors);
}

Tensor smallIntegers(DType dtype, Shape shape, uint32_t seed, int range) {
    std::mt19937 rng(seed);
    Tensor t = Tensor::zeros(dtype, std::move(shape));
    for (int64_t i = 0; i < t.elementCount(); ++i) {
        const auto v = static_cast<int64_t>(rng() % static_cast<uint32_t>(range)) - range / 2;
        switch (dtype) {
            case DType::Int8: t.as<int8_t>()[i] = static_cast<int8_t>(v); break;
            case DType::UInt8: t.as<uint8_t>()[i] = static_cast<uint8_t>(v + range / 2); break;
            case DType::Int32: t.as<int32_t>()[i] = static_cast<int32_t>(v); break;
            case DType::Int64: t.as<int64_t>()[i] = v; break;
            case DType::Fp32: t.as<float>()[i] = static_cast<float>(v) * 0.5f; break;
            default: ADD_FAILURE() << "no small integers of this dtype";
        }
    }
    return t;
}

}  // namespace npusim::compiler::testing
