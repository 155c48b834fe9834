// CPU kernels end to end: each op's loop-IR kernel is emitted as LLVM IR, JIT-compiled by the
// runtime's CpuCode and run on real buffers; its outputs must equal the reference interpreter's.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "compiler/cpu/host_kernels.h"
#include "compiler/cpu/llvm_emitter.h"
#include "compiler/graph/op_table.h"
#include "graph_test_support.h"
#include "host_kernel_test_support.h"
#include "runtime/cpu_code.h"

namespace npusim::compiler {
namespace {

using namespace testing;

TEST(HostKernels, CumSumMatchesTheReferenceInEveryDirection) {
    for (int64_t exclusive : {0, 1}) {
        for (int64_t reverse : {0, 1}) {
            SCOPED_TRACE("exclusive " + std::to_string(exclusive) + " reverse " + std::to_string(reverse));
            const Tensor x = randomFp32({3, 5, 4}, 7);
            const Graph graph = constantOperandGraph(OpKind::CumSum, {x, int64({}, {1})}, {1},
                                                     {{"exclusive", exclusive}, {"reverse", reverse}});
            expectKernelMatchesReference(graph, {{"in0", x}});
        }
    }
    // int32 sums wrap like the reference's.
    Tensor big = Tensor::zeros(DType::Int32, {2, 3});
    for (int32_t& v : big.as<int32_t>()) v = 2'000'000'000;
    expectKernelMatchesReference(constantOperandGraph(OpKind::CumSum, {big, int64({}, {-1})}, {1}), {{"in0", big}});
}

TEST(HostKernels, ArgExtremesPickTheFirstOrLastOfTies) {
    for (DType dtype : {DType::Int8, DType::UInt8, DType::Int64, DType::Fp32}) {
        for (OpKind kind : {OpKind::ArgMax, OpKind::ArgMin}) {
            for (int64_t last : {0, 1}) {
                SCOPED_TRACE(std::string(dtypeName(dtype)) + (kind == OpKind::ArgMax ? " ArgMax" : " ArgMin") +
                             " last " + std::to_string(last));
                const Tensor x = smallIntegers(dtype, {4, 7, 3}, 11, 5);
                const Graph graph = singleOpGraph(kind, {x}, {{"axis", int64_t{1}}, {"select_last_index", last},
                                                              {"keepdims", int64_t{0}}});
                expectKernelMatchesReference(graph, {{"in0", x}});
            }
        }
    }
}

TEST(HostKernels, TopKOrdersTiesByIndexForLargestAndSmallest) {
    for (int64_t largest : {0, 1}) {
        for (int64_t axis : {0, -1}) {
            for (int64_t k : {1, 3, 6}) {
                SCOPED_TRACE("largest " + std::to_string(largest) + " axis " + std::to_string(axis) + " k " +
                             std::to_string(k));
                const Tensor x = smallIntegers(DType::Fp32, {6, 6}, 3, 4);
                const Graph graph = constantOperandGraph(OpKind::TopK, {x, int64({1}, {k})}, {1},
                                                         {{"axis", axis}, {"largest", largest}}, 2);
                expectKernelMatchesReference(graph, {{"in0", x}});
            }
        }
    }
    const Tensor ints = smallIntegers(DType::Int32, {2, 9, 2}, 5, 6);
    expectKernelMatchesReference(
        constantOperandGraph(OpKind::TopK, {ints, int64({1}, {4})}, {1}, {{"axis", int64_t{1}}}, 2), {{"in0", ints}});
}

TEST(HostKernels, WhereBroadcastsItsThreeOperands) {
    const Tensor condition = boolean({4, 1}, {1, 0, 0, 1});
    const Tensor x = randomFp32({1, 5}, 1), y = randomFp32({4, 5}, 2);
    expectKernelMatchesReference(singleOpGraph(OpKind::Where, {condition, x, y}),
                                 {{"in0", condition}, {"in1", x}, {"in2", y}});
}

TEST(HostKernels, ModMatchesTheReferenceForEverySignAndDType) {
    for (DType dtype : {DType::Int8, DType::UInt8, DType::Int32, DType::Int64}) {
        for (int64_t fmod : {0, 1}) {
            SCOPED_TRACE(std::string(dtypeName(dtype)) + " fmod " + std::to_string(fmod));
            // Divisors include 0 and -1, where the hardware remainder is undefined.
            const Tensor a = smallIntegers(dtype, {3, 4}, 5, 40), b = smallIntegers(dtype, {4}, 6, 5);
            expectKernelMatchesReference(singleOpGraph(OpKind::Mod, {a, b}, {{"fmod", fmod}}), {{"in0", a}, {"in1", b}});
        }
    }
    const Tensor a = fp32({4}, {-5.5f, 5.5f, 7, -0.25f}), b = fp32({4}, {2, -2, 0.75f, 3});
    expectKernelMatchesReference(singleOpGraph(OpKind::Mod, {a, b}, {{"fmod", int64_t{1}}}), {{"in0", a}, {"in1", b}});
}

TEST(HostKernels, HalfPrecisionElementsLoadWidenedAndStoreRounded) {
    // Cast's ONNX element type codes: 10 float16, 16 bfloat16.
    for (int64_t to : {10, 16}) {
        SCOPED_TRACE(to);
        const Tensor x = runOp(OpKind::Cast, {randomFp32({3, 5}, 7)}, {{"to", to}});
        expectKernelMatchesReference(singleOpGraph(OpKind::ArgMax, {x}, {{"axis", int64_t{1}}}), {{"in0", x}});
        // A product of three values rounds once to the narrow type, as the reference does.
        expectKernelMatchesReference(singleOpGraph(OpKind::ReduceProd, {x}, {{"axes", std::vector<int64_t>{0}}}), {{"in0", x}});
    }
}

TEST(HostKernels, GathersTakeRunTimeAndNegativeIndices) {
    const Tensor data = randomFp32({3, 5, 2}, 4);
    const Tensor indices = int64({2, 2}, {0, -1, 4, 2});
    expectKernelMatchesReference(singleOpGraph(OpKind::Gather, {data, indices}, {{"axis", int64_t{1}}}),
                                 {{"in0", data}, {"in1", indices}});
    const Tensor narrow = int32({3}, {2, 0, -3});
    expectKernelMatchesReference(singleOpGraph(OpKind::Gather, {data, narrow}), {{"in0", data}, {"in1", narrow}});
    const Tensor elements = int64({2, 5, 2}, {0, 1, 2, -1, 0, 0, 2, 1, -3, 2, 1, 1, 0, 0, 2, 2, 1, 0, -1, -2});
    expectKernelMatchesReference(singleOpGraph(OpKind::GatherElements, {data, elements}, {{"axis", int64_t{0}}}),
                                 {{"in0", data}, {"in1", elements}});
}

TEST(HostKernels, AnIndexOutOfRangeStopsTheKernelWithItsStatus) {
    const Tensor data = randomFp32({2, 5}, 4);
    const Graph graph = singleOpGraph(OpKind::Gather, {data, int64({2}, {1, 5})}, {{"axis", int64_t{1}}});
    const std::optional<cpu::HostKernel> host = cpu::hostKernelFor(graph, graph.nodes[0], 0);
    ASSERT_TRUE(host);
    const runtime::CpuCode code(bytesOf(cpu::emitLlvmModule({host->kernel}, "test")));
    for (const auto& [index, status] : {std::pair<int64_t, int64_t>{5, 1}, {-6, 1}, {-5, 0}, {4, 0}}) {
        Tensor indices = int64({2}, {1, index});
        Tensor out = Tensor::zeros(DType::Fp32, {2, 2});
        Tensor in = data;
        void* const buffers[] = {in.bytes.data(), indices.bytes.data(), out.bytes.data()};
        EXPECT_EQ(code.kernel(host->kernel.name)(buffers), status) << "index " << index;
    }
}

TEST(HostKernels, ReduceProdAndOneHot) {
    const Tensor x = smallIntegers(DType::Int32, {3, 4, 2}, 9, 5);
    expectKernelMatchesReference(
        singleOpGraph(OpKind::ReduceProd, {x}, {{"axes", std::vector<int64_t>{0, 2}}, {"keepdims", int64_t{0}}}),
        {{"in0", x}});
    const Tensor f = randomFp32({2, 3}, 6);
    expectKernelMatchesReference(singleOpGraph(OpKind::ReduceProd, {f}), {{"in0", f}});

    // 5, -4.5, NaN and 1e30 are out of range (and 1e30 cannot convert to an integer).
    const Tensor indices = fp32({2, 4}, {0.0f, 2.7f, -1.0f, 5.0f, -4.5f, std::nanf(""), 1e30f, -3.9f});
    const Tensor values = int64({2}, {-3, 9});
    const Graph graph = constantOperandGraph(OpKind::OneHot, {indices, int64({}, {4}), values}, {1},
                                             {{"axis", int64_t{1}}});
    expectKernelMatchesReference(graph, {{"in0", indices}, {"in2", values}});
}

TEST(HostKernels, SumsMeansAndGlobalAveragePools) {
    const Tensor x = randomFp32({2, 3, 5, 4}, 12);
    for (OpKind kind : {OpKind::ReduceSum, OpKind::ReduceMean, OpKind::ReduceSumSquare}) {
        expectKernelMatchesReference(
            constantOperandGraph(kind, {x, int64({2}, {1, -1})}, {1}, {{"keepdims", int64_t{0}}}), {{"in0", x}});
    }
    expectKernelMatchesReference(singleOpGraph(OpKind::GlobalAveragePool, {x}), {{"in0", x}});
    // A plane far longer than any SRAM row: the CPU path has no such limit.
    const Tensor wide = randomFp32({1, 2, 112, 112}, 13);
    expectKernelMatchesReference(singleOpGraph(OpKind::GlobalAveragePool, {wide}), {{"in0", wide}});
    const Tensor ints = smallIntegers(DType::Int32, {3, 4}, 14, 50);
    expectKernelMatchesReference(constantOperandGraph(OpKind::ReduceSum, {ints, int64({1}, {0})}, {1}), {{"in0", ints}});
}

TEST(HostKernels, ElementwiseMathTheVectorUnitLacks) {
    const Tensor x = randomFp32({3, 7}, 21, -0.95f, 0.95f);  // inside every inverse's domain
    for (OpKind kind : {OpKind::Sin, OpKind::Cos, OpKind::Tan, OpKind::Asin, OpKind::Acos, OpKind::Atan, OpKind::Sinh,
                        OpKind::Cosh, OpKind::Asinh, OpKind::Atanh, OpKind::Floor, OpKind::Ceil, OpKind::Round,
                        OpKind::Sign, OpKind::Softsign, OpKind::Shrink, OpKind::Celu}) {
        SCOPED_TRACE(std::string(opInfo(kind).name));
        expectKernelMatchesReference(singleOpGraph(kind, {x}), {{"in0", x}});
    }
    const Tensor above = randomFp32({9}, 22, 1.0f, 20.0f);
    expectKernelMatchesReference(singleOpGraph(OpKind::Acosh, {above}), {{"in0", above}});
    // Halves round to even; NaN and the infinities are found, each sign when asked.
    const float inf = std::numeric_limits<float>::infinity();
    const Tensor special = fp32({8}, {0.5f, 1.5f, -2.5f, std::nanf(""), inf, -inf, 0.0f, -7.25f});
    expectKernelMatchesReference(singleOpGraph(OpKind::Round, {special}), {{"in0", special}});
    expectKernelMatchesReference(singleOpGraph(OpKind::IsNaN, {special}), {{"in0", special}});
    for (int64_t negative : {0, 1}) {
        expectKernelMatchesReference(singleOpGraph(OpKind::IsInf, {special}, {{"detect_negative", negative}}), {{"in0", special}});
    }
    const Tensor ints = smallIntegers(DType::Int32, {12}, 23, 5);
    expectKernelMatchesReference(singleOpGraph(OpKind::Sign, {ints}), {{"in0", ints}});
    expectKernelMatchesReference(singleOpGraph(OpKind::Shrink, {ints}, {{"lambd", 1.5f}, {"bias", 1.0f}}), {{"in0", ints}});
}

TEST(HostKernels, HardmaxMarksTheFirstMaximumAlongTheAxis) {
    const Tensor x = smallIntegers(DType::Fp32, {3, 4, 5}, 24, 4);  // ties
    for (int64_t axis : {0, 1, -1}) {
        expectKernelMatchesReference(singleOpGraph(OpKind::Hardmax, {x}, {{"axis", axis}}), {{"in0", x}});
    }
}

TEST(HostKernels, BitShiftOfUint8DropsTheBitsShiftedOut) {
    const Tensor x = randomBytes(DType::UInt8, {2, 6}, 25);
    const Tensor amounts = uint8({6}, {0, 1, 3, 7, 8, 200});
    for (const char* direction : {"LEFT", "RIGHT"}) {
        expectKernelMatchesReference(singleOpGraph(OpKind::BitShift, {x, amounts}, {{"direction", std::string(direction)}}),
                                     {{"in0", x}, {"in1", amounts}});
    }
}

TEST(HostKernels, DynamicQuantizeLinearRoundsHalvesToEvenAndSurvivesAllZeros) {
    const Tensor x = fp32({2, 4}, {-1.0f, 0.5f, 2.5f, 3.0f, -0.3f, 1.7f, 0.0f, 2.55f});
    const Graph graph = multiOutputOpGraph(OpKind::DynamicQuantizeLinear, {x}, {}, 3);
    expectKernelMatchesReference(graph, {{"in0", x}});
    // A range of zero gives scale 0 and NaN quotients, which count as 0.
    const Tensor zeros = Tensor::zeros(DType::Fp32, {3});
    expectKernelMatchesReference(multiOutputOpGraph(OpKind::DynamicQuantizeLinear, {zeros}, {}, 3), {{"in0", zeros}});
}

TEST(HostKernels, OperationCountIsTheStaticCostOfTheLoopNest) {
    const Tensor x = randomFp32({1, 4}, 1);
    const Graph graph = constantOperandGraph(OpKind::CumSum, {x, int64({}, {1})}, {1});
    const std::optional<cpu::HostKernel> host = cpu::hostKernelFor(graph, graph.nodes[0], 0);
    ASSERT_TRUE(host);
    // Two one-trip loops (1 step each) around 4 steps of: the loop step (1), the running sum
    // (an index of mul + add + add, the load and the add: 5) and the store (the index and the
    // store: 4).
    const uint64_t count = cpu::operationCount(host->kernel);
    EXPECT_EQ(count, 1u + 1u + 4u * (1u + 5u + 4u));
    const std::string text = cpu::printKernel(host->kernel);
    EXPECT_NE(text.find("cpu kernel @npusim_op0(in %in0: fp32[4], out %out: fp32[4])"), std::string::npos) << text;
    EXPECT_NE(text.find(std::to_string(count) + " operations"), std::string::npos);
}

TEST(HostKernels, AGatherComputesEachRowsStartsOnceAndCopiesTheRow) {
    const Graph graph = singleOpGraph(OpKind::Gather, {randomFp32({8, 16}, 2), int64({3}, {1, -2, 5})});
    const std::optional<cpu::HostKernel> host = cpu::hostKernelFor(graph, graph.nodes[0], 0);
    ASSERT_TRUE(host);
    // A one-trip outer loop (1) around 3 indices, each: the loop step (1), the range check (the
    // if, two loads, two comparisons, the or and the fail: 7), the source row's start (the
    // negative index's select, its comparison, add and three loads, and the row's mul, add,
    // mul: 9) and the result row's (3); then 16 elements of the loop step (1), the store, its
    // index add, the load and its index add (4).
    EXPECT_EQ(cpu::operationCount(host->kernel), 1u + 3u * (1u + 7u + 9u + 3u + 16u * (1u + 4u)));
}

TEST(HostKernels, TheLlvmModuleDefinesOneFunctionPerKernel) {
    const Tensor x = randomFp32({2, 4}, 1);
    const Graph graph = singleOpGraph(OpKind::ArgMax, {x});
    const std::optional<cpu::HostKernel> host = cpu::hostKernelFor(graph, graph.nodes[0], 7);
    ASSERT_TRUE(host);
    const std::string ir = cpu::emitLlvmModule({host->kernel}, "model");
    EXPECT_NE(ir.find("define i64 @npusim_op7(ptr"), std::string::npos) << ir;
    // fp32[2,4] in, int64[1,4] out.
    EXPECT_NE(ir.find("@npusim_op7.buffers"), std::string::npos) << ir;
    EXPECT_NE(ir.find("[4 x i64] [i64 3, i64 8, i64 6, i64 4]"), std::string::npos) << ir;
    EXPECT_NE(ir.find("ModuleID = 'model'"), std::string::npos) << ir;
}

TEST(HostKernels, OpsAndDTypesWithoutAKernelHaveNone) {
    const Graph softmax = singleOpGraph(OpKind::Softmax, {randomFp32({2}, 1)});
    EXPECT_FALSE(cpu::hostKernelFor(softmax, softmax.nodes[0], 0));
    // CumSum's axis decides the loop nest: it must be a constant.
    const Graph runTimeAxis = singleOpGraph(OpKind::CumSum, {randomFp32({2, 2}, 1), int64({}, {0})});
    EXPECT_NE(inputErrorOf([&] { cpu::hostKernelFor(runTimeAxis, runTimeAxis.nodes[0], 0); }).find("axis must be a constant"),
              std::string::npos);
}

TEST(CpuCode, BadIrAndUnknownKernelsAreInputErrorsNamingTheSection) {
    const std::string broken = "define void @f(ptr %p) {\n  ret i32 0\n}\n";
    const std::string message = inputErrorOf([&] { runtime::CpuCode code(bytesOf(broken)); });
    EXPECT_NE(message.find("artifact section 'cpu': line 2"), std::string::npos) << message;
    const std::string empty = "define void @f(ptr %p) {\n  ret void\n}\n";
    const std::string defined = "@f.buffers = constant [2 x i64] [i64 3, i64 4]\n"
                                "define i64 @f(ptr %p) {\n  ret i64 0\n}\n";
    const runtime::CpuCode code(bytesOf(defined));
    EXPECT_EQ(code.buffers("f"), (std::vector<runtime::CpuCode::Buffer>{{DType::Fp32, 4}}));
    EXPECT_NE(inputErrorOf([&] { code.kernel("g"); }).find("no kernel 'g'"), std::string::npos);
    // Only the module's kernels: not a function of the process the JIT could otherwise reach.
    EXPECT_NE(inputErrorOf([&] { code.kernel("abort"); }).find("no kernel 'abort'"), std::string::npos);
    // A function without its buffer list is refused when the code is loaded.
    EXPECT_NE(inputErrorOf([&] { runtime::CpuCode bare(bytesOf(empty)); }).find("no buffer list"), std::string::npos);
}

}  // namespace
}  // namespace npusim::compiler
