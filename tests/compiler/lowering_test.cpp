// Lowering from graph IR to commands: schedules fit the hardware, every generated command
// passes the firmware's validation, semaphores balance, and mapping errors name the op.
#include <gtest/gtest.h>

#include <bit>
#include <map>

#include "arch/arch_config.h"
#include "compiler/cost/cost_model.h"
#include "compiler/graph/op_table.h"
#include "compiler/graph/printer.h"
#include "compiler/memory/memory_planning.h"
#include "compiler/passes/graph_pass.h"
#include "compiler/target/codegen.h"
#include "compiler/tile/footprint.h"
#include "compiler/tiling/fusion.h"
#include "compiler/tiling/tiling.h"
#include "graph_test_support.h"
#include "lowering_test_support.h"

namespace npusim::compiler {
namespace {

using testing::expectValidStream;
using testing::inputErrorOf;
using testing::lower;
using testing::Lowered;
using testing::singleOpGraph;

/// Makes graph input `index` a constant of zeros.
void makeConstant(Graph& graph, size_t index) {
    Value& value = graph.value(graph.inputs.at(index));
    value.constant = Tensor::zeros(value.dtype, value.shape);
    graph.inputs.erase(graph.inputs.begin() + static_cast<long>(index));
}

Graph gemmGraph(Shape a, Shape b, std::optional<Shape> c, std::map<std::string, Attribute> attributes) {
    std::vector<std::optional<Tensor>> inputs = {Tensor::zeros(DType::Fp32, std::move(a)),
                                                 Tensor::zeros(DType::Fp32, std::move(b))};
    if (c) inputs.push_back(Tensor::zeros(DType::Fp32, *c));
    return singleOpGraph(OpKind::Gemm, inputs, std::move(attributes));
}


TEST(Lowering, GemmStreamsAreValidOnEveryPreset) {
    for (const std::string& preset : archPresetNames()) {
        const ArchConfig config = loadArchConfig(preset, {});
        Graph graph = gemmGraph({96, 200}, {300, 200}, Shape{300}, {{"transB", int64_t{1}}, {"alpha", 0.5}});
        makeConstant(graph, 1);
        for (const GraphPass& pass : graphPasses()) pass.run(graph);
        const Lowered l = lower(graph, config);
        expectValidStream(l, config);
        const auto& gemm = std::get<GemmTiles>(l.tiles.ops.at(0));
        const GemmFootprint f = gemmFootprint(gemm.problem, gemm.schedule, config);
        EXPECT_LE(f.sramBytes, config.sram.sizeBytes) << preset;
        EXPECT_LE(f.accumulatorBytes, config.accumulator.sizeBytes) << preset;
    }
}

TEST(Lowering, RuntimeTransposedOperandUsesATransposingDma) {
    const ArchConfig edge = loadArchConfig("edge", {});
    const Graph graph = gemmGraph({64, 40}, {64, 48}, std::nullopt, {{"transA", int64_t{1}}});
    const Lowered l = lower(graph, edge);
    expectValidStream(l, edge);
    bool transposed = false;
    for (const isa::Command& c : l.commands) transposed = transposed || c.get(isa::Field::Transpose) == 1;
    EXPECT_TRUE(transposed);
}

TEST(Lowering, ConstantTransposeIsFoldedIntoTheWeights) {
    Graph graph = gemmGraph({8, 32}, {16, 32}, std::nullopt, {{"transB", int64_t{1}}});
    makeConstant(graph, 1);
    foldGemmConstants(graph);
    const std::string text = printGraph(graph);
    EXPECT_NE(text.find("in1.T"), std::string::npos) << text;
    EXPECT_EQ(graph.nodes[0].intAttr("transB", -1), 0);
    EXPECT_EQ(graph.value(graph.nodes[0].inputs[1]).shape, (Shape{32, 16}));
}

TEST(Lowering, MappingErrorsNameTheOp) {
    const ArchConfig edge = loadArchConfig("edge", {});
    const CostModel model(edge);
    const Graph int32MatMul = singleOpGraph(OpKind::MatMul, {Tensor::zeros(DType::Int32, {4, 4}),
                                                             Tensor::zeros(DType::Int32, {4, 4})});
    EXPECT_NE(inputErrorOf([&] { lowerToTiles(int32MatMul, edge, model); }).find("op 'op' (MatMul)"),
              std::string::npos);

    const ArchConfig noTranspose = loadArchConfig("edge", std::vector<std::string>{"dma.transpose=false"});
    const Graph transposed = gemmGraph({16, 8}, {16, 8}, std::nullopt, {{"transB", int64_t{1}}});
    EXPECT_NE(inputErrorOf([&] { lowerToTiles(transposed, noTranspose, CostModel(noTranspose)); })
                  .find("dma.transpose=false"),
              std::string::npos);

    // Neither the vector unit nor the CPU kernel, which needs a constant axis, takes this CumSum.
    const Graph runTimeAxis = singleOpGraph(OpKind::CumSum, {Tensor::zeros(DType::Fp32, {4, 4}), testing::int64({}, {0})});
    EXPECT_NE(inputErrorOf([&] { lowerToTiles(runTimeAxis, edge, model); }).find("op 'op' (CumSum): the axis must be a constant"),
              std::string::npos);
}

TEST(Lowering, BlocksReuseResidentOperands) {
    SlotCache cache(2);
    EXPECT_TRUE(cache.use({0, 1, 0}).load);
    EXPECT_TRUE(cache.use({0, 2, 0}).load);
    EXPECT_FALSE(cache.use({0, 1, 0}).load);  // still resident in slot 0
    const SlotCache::Use third = cache.use({0, 3, 0});  // evicts {0,2,0}, the least recently used
    EXPECT_TRUE(third.load);
    EXPECT_EQ(third.slot, 1);
    EXPECT_FALSE(cache.use({0, 1, 0}).load);
}

TEST(Lowering, BatchedMatMulBroadcastsOperandOffsets) {
    const ArchConfig edge = loadArchConfig("edge", {});
    const Graph graph = singleOpGraph(OpKind::MatMul, {Tensor::zeros(DType::Fp32, {2, 1, 3, 4}),
                                                       Tensor::zeros(DType::Fp32, {3, 4, 5})});
    const GemmProblem p = gemmProblemFor(graph, graph.nodes[0], 0, edge);
    EXPECT_EQ(p.batch, 6);
    EXPECT_EQ(p.a.batchOffsets, (std::vector<int64_t>{0, 0, 0, 12, 12, 12}));
    EXPECT_EQ(p.b.batchOffsets, (std::vector<int64_t>{0, 20, 40, 0, 20, 40}));
    expectValidStream(lower(graph, edge), edge);
}

TEST(Lowering, BatchesSharingOneBStackTheirRowsIntoOneGemm) {
    // A projection over activations laid out [seq, 1, d]: 197 batches of one row each, one
    // weight. Stacked, the weight's blocks load once, not once per batch.
    const ArchConfig edge = loadArchConfig("edge", {});
    Graph graph = singleOpGraph(OpKind::MatMul, {Tensor::zeros(DType::Fp32, {197, 1, 64}),
                                                 Tensor::zeros(DType::Fp32, {64, 32})});
    makeConstant(graph, 1);
    const GemmProblem p = gemmProblemFor(graph, graph.nodes[0], 0, edge);
    EXPECT_EQ(p.batch, 1);
    EXPECT_EQ(p.m, 197);
    EXPECT_EQ(p.a.batchOffsets, (std::vector<int64_t>{0}));
    EXPECT_EQ(p.b.batchOffsets, (std::vector<int64_t>{0}));
    expectValidStream(lower(graph, edge), edge);

    // Batches with a B each, or sharing A, stay batches.
    const Graph own = singleOpGraph(OpKind::MatMul, {Tensor::zeros(DType::Fp32, {3, 2, 4}), Tensor::zeros(DType::Fp32, {3, 4, 5})});
    EXPECT_EQ(gemmProblemFor(own, own.nodes[0], 0, edge).batch, 3);
    const Graph shared = singleOpGraph(OpKind::MatMul, {Tensor::zeros(DType::Fp32, {2, 4}), Tensor::zeros(DType::Fp32, {3, 4, 5})});
    EXPECT_EQ(gemmProblemFor(shared, shared.nodes[0], 0, edge).batch, 3);
}

}  // namespace
}  // namespace npusim::compiler

namespace npusim::compiler {
namespace {

TEST(Lowering, ReshapesOfIntermediatesShareTheirStorage) {
    // x -> Relu -> Reshape [6] -> Relu -> y: the reshape moves no data.
    testing::GraphBuilder b("view");
    const ValueId x = b.input("x", DType::Fp32, {2, 3});
    const ValueId a = b.op(OpKind::Relu, "a", {x});
    const ValueId flat = b.op(OpKind::Reshape, "flat", {a, b.constant("shape", testing::int64({1}, {6}))});
    const ValueId y = b.op(OpKind::Relu, "y", {flat});
    const Graph graph = b.finish({y});
    const ArchConfig edge = loadArchConfig("edge", {});
    const TileProgram program = lowerToTiles(graph, edge, CostModel(edge));
    EXPECT_EQ(program.views.at(flat), a);
    EXPECT_TRUE(std::get<VectorTiles>(program.ops[1]).kernels.empty());
    const MemoryPlan plan = planMemory(graph, program, edge);
    EXPECT_EQ(plan.tensor(flat).offset, plan.tensor(a).offset);
    EXPECT_EQ(plan.tensor(flat).storage, a);
    // The storage lives until the view's last reader.
    EXPECT_EQ(plan.tensor(a).lastOp, 2);

    // A view that is the graph's output: the output is read from its storage after the job.
    Graph tail = graph;
    tail.nodes.pop_back();
    tail.outputs = {flat};
    const TileProgram tailProgram = lowerToTiles(tail, edge, CostModel(edge));
    const MemoryPlan tailPlan = planMemory(tail, tailProgram, edge);
    EXPECT_EQ(std::count_if(tailPlan.tensors.begin(), tailPlan.tensors.end(), [&](const TensorHome& t) { return t.value == flat; }), 1);
    EXPECT_EQ(tailPlan.tensor(flat).offset, tailPlan.tensor(a).offset);
    EXPECT_EQ(tailPlan.tensor(flat).role, TensorRole::Output);
    EXPECT_EQ(tailPlan.tensor(a).lastOp, 1);
}

}  // namespace
}  // namespace npusim::compiler

namespace npusim::compiler {
namespace {

TEST(Fusion, AChainOfElementwiseKernelsBecomesOne) {
    // x -> Exp -> Sigmoid -> Tanh -> y: the three kernels merge into the last op's.
    testing::GraphBuilder b("chain");
    const ValueId x = b.input("x", DType::Fp32, {64, 128});
    ValueId previous = x;
    const OpKind kinds[] = {OpKind::Exp, OpKind::Sigmoid, OpKind::Tanh};
    for (int i = 0; i < 3; ++i) previous = b.op(kinds[i], "op" + std::to_string(i), {previous});
    const Graph graph = b.finish({previous});
    const ArchConfig edge = loadArchConfig("edge", {});
    const CostModel model(edge);
    TileProgram program = lowerToTiles(graph, edge, model);
    EXPECT_EQ(fuseVectorKernels(program, graph, edge, model), 2);
    EXPECT_EQ(std::get<VectorTiles>(program.ops[0]).fusedInto, 2u);
    EXPECT_EQ(std::get<VectorTiles>(program.ops[1]).fusedInto, 2u);
    const VectorProblem& fused = std::get<VectorTiles>(program.ops[2]).kernels.at(0).problem;
    EXPECT_EQ(fused.name, "Exp+Sigmoid+Tanh");
    ASSERT_EQ(fused.loads.size(), 1u);
    EXPECT_EQ(fused.loads[0].view.value, x);
    ASSERT_EQ(fused.stores.size(), 1u);
    EXPECT_EQ(fused.steps.size(), 3u);
    EXPECT_NE(printTileProgram(program, graph).find("tile.none @op0 op=0: fused into @op2"), std::string::npos);
}

TEST(Fusion, AValueWithTwoReadingKernelsKeepsItsOwnKernel) {
    // a = Exp(x) is read by Relu and by Tanh, whose results are both graph outputs.
    testing::GraphBuilder builder("fanout");
    const ValueId a = builder.op(OpKind::Exp, "exp", {builder.input("x", DType::Fp32, {16, 16})});
    const Graph graph = builder.finish({builder.op(OpKind::Relu, "relu", {a}), builder.op(OpKind::Tanh, "tanh", {a})});
    const ArchConfig edge = loadArchConfig("edge", {});
    const CostModel model(edge);
    TileProgram program = lowerToTiles(graph, edge, model);
    EXPECT_EQ(fuseVectorKernels(program, graph, edge, model), 0);
    EXPECT_EQ(std::get<VectorTiles>(program.ops[0]).kernels.size(), 1u);
}

}  // namespace
}  // namespace npusim::compiler

namespace npusim::compiler {
namespace {

TEST(Lowering, BackwardCopiesAreUnrolledIntoForwardOnes) {
    // x[::-1, 1::2] of a [4, 6] tensor: the first axis walks backwards.
    const Graph graph = testing::constantOperandGraph(
        OpKind::Slice,
        {Tensor::zeros(DType::Fp32, {4, 6}), testing::int64({2}, {-1, 1}), testing::int64({2}, {-100, 6}),
         testing::int64({2}, {0, 1}), testing::int64({2}, {-1, 2})},
        {1, 2, 3, 4});
    const ArchConfig edge = loadArchConfig("edge", {});
    const TileProgram program = lowerToTiles(graph, edge, CostModel(edge));
    const auto& kernels = std::get<VectorTiles>(program.ops.at(0)).kernels;
    EXPECT_EQ(kernels.size(), 4u);  // one per row
    for (const VectorKernel& kernel : kernels) {
        for (const VectorLoad& load : kernel.problem.loads) {
            for (int64_t stride : load.view.strides) EXPECT_GE(stride, 0);
        }
    }
}

}  // namespace
}  // namespace npusim::compiler

namespace npusim::compiler {
namespace {

/// `graph` lowered for edge with its GEMM epilogues fused, `fusions` of them.
TileProgram withFusedEpilogues(const Graph& graph, int fusions) {
    const ArchConfig edge = loadArchConfig("edge", {});
    const CostModel model(edge);
    TileProgram program = lowerToTiles(graph, edge, model);
    EXPECT_EQ(fuseGemmEpilogues(program, graph, edge, model), fusions);
    return program;
}

TEST(Fusion, AnActivationAfterAGemmRunsOnItsAccumulator) {
    // y = Clip(Relu(x W), 0, 6): both steps join the GEMM, which stores y.
    testing::GraphBuilder b("gemm_act", 10);  // Clip's bounds as attributes
    const ValueId h = b.op(OpKind::MatMul, "matmul",
                           {b.input("x", DType::Fp32, {32, 64}), b.constant("w", Tensor::zeros(DType::Fp32, {64, 16}))});
    const ValueId y = b.op(OpKind::Clip, "clip", {b.op(OpKind::Relu, "relu", {h})}, {{"min", 0.0}, {"max", 6.0}});
    const Graph graph = b.finish({y});
    const TileProgram program = withFusedEpilogues(graph, 2);
    const GemmProblem& gemm = std::get<GemmTiles>(program.ops[0]).problem;
    ASSERT_EQ(gemm.epilogue.size(), 3u);  // relu; clip as max then min
    EXPECT_EQ(gemm.epilogue[0].op, isa::VectorOp::Relu);
    EXPECT_EQ(gemm.output, y);
    EXPECT_EQ(std::get<VectorTiles>(program.ops[2]).fusedInto, 0u);
}

TEST(Fusion, AnIntegerGemmsRequantisationRunsOnItsAccumulatorAndStoresInt8) {
    // QLinearMatMul's form after integer-matmul: int32 product, cast to fp32, scaled, quantised.
    // The GEMM requantises each block in one step (the vector unit's requantize, the same fp32
    // product rounded) and stores int8: the int32 product never reaches DRAM.
    testing::GraphBuilder b("requantise", 13);
    const ValueId product = b.op(OpKind::MatMulInteger, "matmul",
                                 {b.input("x", DType::Int8, {32, 64}), b.constant("w", Tensor::zeros(DType::Int8, {64, 16}))});
    const ValueId real = b.op(OpKind::Cast, "to_float", {product}, {{"to", int64_t{1}}});
    const ValueId scaled = b.op(OpKind::Mul, "rescale", {real, b.constant("multiplier", testing::fp32({}, {0.25f}))});
    const ValueId y = b.op(OpKind::QuantizeLinear, "quantize",
                           {scaled, b.constant("one", testing::fp32({}, {1.0f})), b.constant("zero", testing::int8({}, {3}))});
    const Graph graph = b.finish({y});
    const TileProgram program = withFusedEpilogues(graph, 3);
    const GemmProblem& gemm = std::get<GemmTiles>(program.ops[0]).problem;
    ASSERT_EQ(gemm.epilogue.size(), 1u);
    const EpilogueStep& requantize = gemm.epilogue[0];
    EXPECT_EQ(requantize.op, isa::VectorOp::Requantize);
    EXPECT_EQ(requantize.in, DType::Int32);
    EXPECT_EQ(requantize.out, DType::Int8);
    EXPECT_EQ(requantize.immediate, std::bit_cast<uint32_t>(0.25f));
    EXPECT_EQ(requantize.immediate2, 3u);
    EXPECT_EQ(gemm.outputType, DType::Int8);
    EXPECT_EQ(gemm.output, y);
}

TEST(Fusion, ALinearLayersBiasAfterAMatMulBecomesTheGemmsBias) {
    // y = Relu(x W + b), b one value per column: the GEMM adds b itself (row mode) and applies
    // the Relu. z = x W2 + r, r a tensor of the result's shape (a residual connection): the
    // GEMM's accumulators start from r.
    testing::GraphBuilder b("linear", 13);
    const ValueId x = b.input("x", DType::Fp32, {32, 64});
    const ValueId bias = b.constant("b", Tensor::zeros(DType::Fp32, {16}));
    const ValueId h = b.op(OpKind::MatMul, "matmul", {x, b.constant("w", Tensor::zeros(DType::Fp32, {64, 16}))});
    const ValueId y = b.op(OpKind::Relu, "relu", {b.op(OpKind::Add, "add", {bias, h})});
    const ValueId other = b.op(OpKind::MatMul, "matmul2", {x, b.constant("w2", Tensor::zeros(DType::Fp32, {64, 16}))});
    const ValueId z = b.op(OpKind::Add, "add2", {other, b.input("r", DType::Fp32, {32, 16})});
    const Graph graph = b.finish({y, z});
    const ArchConfig edge = loadArchConfig("edge", {});
    const CostModel model(edge);
    TileProgram program = lowerToTiles(graph, edge, model);
    EXPECT_EQ(fuseGemmEpilogues(program, graph, edge, model), 3);
    const GemmTiles& linear = std::get<GemmTiles>(program.ops[0]);
    EXPECT_EQ(linear.problem.bias, bias);
    EXPECT_EQ(linear.problem.biasMode, BiasMode::Row);
    ASSERT_EQ(linear.problem.epilogue.size(), 1u);
    EXPECT_EQ(linear.problem.output, y);
    EXPECT_EQ(linear.schedule.estimate.totalCycles, model.estimateGemm(linear.problem, linear.schedule).totalCycles);
    const GemmTiles& residual = std::get<GemmTiles>(program.ops[3]);
    EXPECT_EQ(residual.problem.bias, kNoValue);
    EXPECT_EQ(residual.problem.residual, graph.inputs[1]);
    EXPECT_EQ(residual.problem.output, z);
    EXPECT_EQ(std::get<VectorTiles>(program.ops[4]).fusedInto, 3u);
    expectValidStream(lower(graph, edge), edge);
}

}  // namespace
}  // namespace npusim::compiler

namespace npusim::compiler {
namespace {

TEST(Fusion, KernelsWhoseRowsAreCutDifferentlyMeetOnACommonCut) {
    // p = x * c (c [256, 64] broadcast over the 8 heads); y = p + z: the Mul's index space keeps
    // the heads apart, the Add's merges everything, yet the rows are the same.
    testing::GraphBuilder b("rope_like");
    const ValueId x = b.input("x", DType::Fp32, {8, 256, 64}), z = b.input("z", DType::Fp32, {8, 256, 64});
    const ValueId p = b.op(OpKind::Mul, "mul", {x, b.constant("c", Tensor::zeros(DType::Fp32, {256, 64}))});
    const Graph graph = b.finish({b.op(OpKind::Add, "add", {p, z})});
    const ArchConfig edge = loadArchConfig("edge", {});
    const CostModel model(edge);
    TileProgram program = lowerToTiles(graph, edge, model);
    ASSERT_NE(std::get<VectorTiles>(program.ops[0]).kernels[0].problem.dims,
              std::get<VectorTiles>(program.ops[1]).kernels[0].problem.dims);
    EXPECT_EQ(fuseVectorKernels(program, graph, edge, model), 1);
    const VectorProblem& fused = std::get<VectorTiles>(program.ops[1]).kernels.at(0).problem;
    EXPECT_EQ(fused.loads.size(), 3u);  // x, c and z; p never leaves the chip
    EXPECT_EQ(elementCount(fused.dims), 8 * 256 * 64);
}

}  // namespace
}  // namespace npusim::compiler

namespace npusim::compiler {
namespace {

TEST(Lowering, Int64ArithmeticRunsOnTheLowWords) {
    const Graph add = singleOpGraph(OpKind::Add, {Tensor::zeros(DType::Int64, {4, 8}), Tensor::zeros(DType::Int64, {4, 8})});
    const ArchConfig edge = loadArchConfig("edge", {});
    const TileProgram program = lowerToTiles(add, edge, CostModel(edge));
    const VectorProblem& p = std::get<VectorTiles>(program.ops.at(0)).kernels.at(0).problem;
    for (const VectorLoad& load : p.loads) {
        EXPECT_EQ(p.buffers[load.buffer].dtype, DType::Int32);
        EXPECT_EQ(load.view.strides.back(), 2);  // every other int32: the low words
    }
    ASSERT_EQ(p.stores.size(), 2u);  // low words, then the sign-extended high words
    EXPECT_EQ(p.stores[0].view.offset, 0);
    EXPECT_EQ(p.stores[1].view.offset, 1);
    // A copy moves every byte of int64 data: Identity computes nothing.
    const Graph copy = singleOpGraph(OpKind::Identity, {Tensor::zeros(DType::Int64, {4})});
    const TileProgram copied = lowerToTiles(copy, edge, CostModel(edge));
    const VectorProblem& c = std::get<VectorTiles>(copied.ops.at(0)).kernels.at(0).problem;
    ASSERT_EQ(c.loads.size(), 1u);
    EXPECT_EQ(c.buffers[c.loads[0].buffer].dtype, DType::Int64);
    EXPECT_EQ(c.stores.size(), 1u);
}

}  // namespace
}  // namespace npusim::compiler

namespace npusim::compiler {
namespace {

TEST(Lowering, SingleBufferedBlocksLoadBeforeTheirGemms) {
    Graph graph = gemmGraph({64, 96}, {96, 80}, std::nullopt, {});
    const ArchConfig edge = loadArchConfig("edge", {});
    Lowered l;
    l.tiles = lowerToTiles(graph, edge, CostModel(edge));
    GemmSchedule& schedule = std::get<GemmTiles>(l.tiles.ops.at(0)).schedule;
    schedule.doubleBuffer = false;
    schedule.mBlock = schedule.nBlock = schedule.kBlock = 32;
    l.memory = planMemory(graph, l.tiles, edge);
    l.commands = generateCommands(l.tiles, l.memory, edge);
    expectValidStream(l, edge);
    // With one slot per operand, every load of a block comes before the block's first GEMM.
    std::map<uint32_t, size_t> lastLoad, firstGemm;
    for (size_t i = 0; i < l.commands.size(); ++i) {
        const isa::Command& c = l.commands[i];
        if (c.opcode == isa::Opcode::DmaLoad) lastLoad[c.tileId] = i;
        if (c.opcode == isa::Opcode::Gemm && !firstGemm.contains(c.tileId)) firstGemm[c.tileId] = i;
    }
    ASSERT_GT(firstGemm.size(), 1u);
    for (const auto& [tile, load] : lastLoad) {
        if (firstGemm.contains(tile)) {
            EXPECT_LT(load, firstGemm.at(tile)) << "tile " << tile;
        }
    }
}

}  // namespace
}  // namespace npusim::compiler
