// Loading, input binding, segment execution and output read-back.
#include "runtime/runtime.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "arch/error.h"
#include "arch/isa.h"

namespace npusim::runtime {

namespace {

/// "op 'name' (Type)" of an op of the artifact; "op N" when the manifest has no record of it.
std::string opLabel(const ArtifactManifest& manifest, uint32_t opId) {
    const auto op = std::find_if(manifest.ops.begin(), manifest.ops.end(), [&](const OpRecord& r) { return r.opId == opId; });
    return op == manifest.ops.end() ? "op " + std::to_string(opId) : "op '" + op->name + "' (" + op->type + ")";
}

/// A job's error with the op its failing command belongs to in front, when the command (in
/// the `commands` the job ran) names one.
std::string withFailingOp(const ArtifactManifest& manifest, std::span<const std::byte> commands, const driver::JobError& e) {
    const uint64_t at = uint64_t{e.commandIndex} * isa::kCommandBytes;
    if (at + isa::kCommandBytes > commands.size()) return e.what();
    try {
        const isa::Command command = isa::decode(commands.subspan(at).first<isa::kCommandBytes>());
        return command.opId == isa::kNoOp ? std::string(e.what()) : opLabel(manifest, command.opId) + ": " + e.what();
    } catch (const InputError&) {
        return e.what();
    }
}

/// InputError unless the binding lies inside a window of `windowBytes`.
void checkInWindow(const TensorBinding& binding, uint64_t windowBytes, const std::string& what) {
    const uint64_t bytes = static_cast<uint64_t>(elementCount(binding.shape)) * dtypeSize(binding.dtype);
    if (binding.dramOffset > windowBytes || bytes > windowBytes - binding.dramOffset) {
        throw InputError(what + " '" + binding.name + "' (" + std::to_string(bytes) + " bytes at +" +
                         std::to_string(binding.dramOffset) + ") lies outside the " + std::to_string(windowBytes) +
                         "-byte DRAM window");
    }
}

/// InputError unless every streamed weight of a segment comes from the weights section and
/// lands inside the window, and every weight its CPU kernel reads lies in the section.
void checkUploads(const SegmentRecord& segment, uint64_t sectionBytes, uint64_t windowBytes) {
    for (const WeightUpload& upload : segment.uploads) {
        if (upload.source > sectionBytes || upload.bytes > sectionBytes - upload.source ||
            upload.dramOffset > windowBytes || upload.bytes > windowBytes - upload.dramOffset) {
            throw InputError("a weight upload of op " + std::to_string(upload.opId) + " (" + std::to_string(upload.bytes) +
                             " bytes from +" + std::to_string(upload.source) + " to +" + std::to_string(upload.dramOffset) +
                             ") lies outside the " + std::to_string(sectionBytes) + "-byte weights section or the " +
                             std::to_string(windowBytes) + "-byte DRAM window");
        }
    }
    for (const TensorBinding& input : segment.inputs) {
        const uint64_t bytes = static_cast<uint64_t>(elementCount(input.shape)) * dtypeSize(input.dtype);
        if (input.imageOffset >= 0 && (static_cast<uint64_t>(input.imageOffset) > sectionBytes ||
                                       bytes > sectionBytes - static_cast<uint64_t>(input.imageOffset))) {
            throw InputError("the weight '" + input.name + "' a CPU segment reads (" + std::to_string(bytes) +
                             " bytes at +" + std::to_string(input.imageOffset) + ") lies outside the " +
                             std::to_string(sectionBytes) + "-byte weights section");
        }
    }
}

/// InputError unless a CPU segment binds exactly the buffers its kernel was compiled for.
void checkKernelBindings(const SegmentRecord& segment, const std::vector<CpuCode::Buffer>& buffers) {
    std::vector<CpuCode::Buffer> bound;
    for (const auto* list : {&segment.inputs, &segment.outputs}) {
        for (const TensorBinding& b : *list) bound.push_back({b.dtype, elementCount(b.shape)});
    }
    if (bound != buffers) {
        throw InputError("CPU segment of op " + std::to_string(segment.opId) + " binds " + std::to_string(bound.size()) +
                         " tensors that differ from the " + std::to_string(buffers.size()) + " buffers kernel '" +
                         segment.kernel + "' was compiled for");
    }
}

}  // namespace

Runtime::Runtime(driver::Driver& driver, uint64_t timeoutCycles, HostOptions host)
    : driver_(driver), timeoutCycles_(timeoutCycles), host_(host) {}

LoadedModel Runtime::load(const Artifact& artifact) {
    const ArtifactManifest& manifest = artifact.manifest;
    for (const TensorBinding& binding : manifest.inputs) checkInWindow(binding, manifest.dramBytes, "input");
    for (const TensorBinding& binding : manifest.outputs) checkInWindow(binding, manifest.dramBytes, "output");
    for (const TensorBinding& binding : manifest.sizes) checkInWindow(binding, manifest.dramBytes, "size");
    if (!host_.timingOnly && artifact.unreadSections.contains(kWeightsSection)) {
        throw InputError("the artifact's weights were left unread (read for a timing-only run), but this run computes values");
    }
    const uint64_t weightBytes = artifact.sectionBytes(kWeightsSection);
    if (manifest.residentWeightBytes > weightBytes || manifest.weightsOffset > manifest.dramBytes ||
        manifest.residentWeightBytes > manifest.dramBytes - manifest.weightsOffset) {
        throw InputError("the resident weights (" + std::to_string(manifest.residentWeightBytes) + " bytes at +" +
                         std::to_string(manifest.weightsOffset) + ") exceed the " + std::to_string(weightBytes) +
                         "-byte weights section or the " + std::to_string(manifest.dramBytes) + "-byte DRAM window");
    }
    for (const SegmentRecord& segment : manifest.segments) checkUploads(segment, weightBytes, manifest.dramBytes);
    LoadedModel model;
    model.artifact = &artifact;
    if (artifact.sections.contains(kCpuSection)) {
        model.cpu = std::make_shared<const CpuCode>(artifact.sections.at(kCpuSection));
    }
    // Every kernel is checked and compiled now, so that a run pays no JIT time.
    std::vector<const std::vector<std::byte>*> streams;
    for (const SegmentRecord& segment : manifest.segments) {
        if (!segment.cpu) {
            const auto section = artifact.sections.find(segment.section);
            if (section == artifact.sections.end()) throw InputError("artifact has no '" + segment.section + "' section");
            streams.push_back(&section->second);
            model.segments.push_back({});
            continue;
        }
        if (!model.cpu) throw InputError("artifact has CPU segments but no '" + std::string(kCpuSection) + "' section");
        for (const auto* list : {&segment.inputs, &segment.outputs}) {
            for (const TensorBinding& binding : *list) checkInWindow(binding, manifest.dramBytes, "CPU segment tensor");
        }
        checkKernelBindings(segment, model.cpu->buffers(segment.kernel));
        model.segments.push_back({{}, model.cpu->kernel(segment.kernel), {}});
    }
    model.context = driver_.createContext(manifest.dramBytes);
    try {
        if (manifest.residentWeightBytes > 0) {
            writeWeights(model, manifest.weightsOffset, 0, manifest.residentWeightBytes);
        }
        loadCommands(model, streams);
    } catch (...) {
        release(model);  // a failed upload leaves nothing behind on the device
        throw;
    }
    return model;
}

void Runtime::loadCommands(LoadedModel& model, const std::vector<const std::vector<std::byte>*>& streams) {
    // Resident when device memory holds every stream; else a staging buffer of a few MiB is
    // set aside first, the streams that still fit beside it are resident and the others run
    // through it, one job at a time.
    uint64_t total = 0;
    for (const auto* stream : streams) total += stream->size();
    const bool stage = total > driver_.largestFreeBlock();
    const uint64_t jobBytesLimit = std::min(kCommandStagingBytes, driver_.largestFreeBlock());
    std::vector<size_t> streamed;
    auto stream = streams.begin();
    for (size_t i = 0; i < model.segments.size(); ++i) {
        if (model.segments[i].kernel) continue;
        const std::vector<std::byte>& bytes = **stream++;
        if (!stage || bytes.size() + jobBytesLimit <= driver_.largestFreeBlock()) {
            model.segments[i].commands = driver_.uploadCommands(bytes);
        } else {
            model.segments[i].jobs = planCommandJobs(bytes, jobBytesLimit);
            streamed.push_back(i);
        }
    }
    if (streamed.empty()) return;
    uint64_t largest = 0;
    stream = streams.begin();
    for (size_t i = 0; i < model.segments.size(); ++i) {
        if (model.segments[i].kernel) continue;
        const std::vector<std::byte>& bytes = **stream++;
        for (const CommandJob& job : model.segments[i].jobs) largest = std::max(largest, jobByteCount(bytes, job));
    }
    model.staging = driver_.allocateCommands(largest);
}

void Runtime::release(const LoadedModel& model) {
    for (const LoadedSegment& segment : model.segments) {
        if (segment.commands.capacity > 0) driver_.releaseCommands(segment.commands);
    }
    if (model.staging.capacity > 0) driver_.releaseCommands(model.staging);
    driver_.destroyContext(model.context);
}

driver::JobResult Runtime::runJob(const LoadedModel& model, const driver::CommandBuffer& commands, RunResult& result) {
    // A job run again spans its failed attempts: the run took them, and moved their bytes.
    const uint64_t firstAttempt = driver_.nowCycles();
    for (int attempt = 0;; ++attempt) {
        try {
            driver::JobResult job = driver_.run(model.context, commands, timeoutCycles_);
            if (attempt > 0) job = {firstAttempt, job.startCycle + job.cycles - firstAttempt};
            return job;
        } catch (const RunError& failure) {
            if (attempt >= host_.jobRetries) throw;
            result.retriedFailures.push_back(failure.what());
        }
    }
}

driver::JobResult Runtime::runSegment(const LoadedModel& model, size_t index, RunResult& result) {
    const LoadedSegment& segment = model.segments[index];
    const std::vector<std::byte>& stream = model.artifact->sections.at(model.artifact->manifest.segments[index].section);
    if (segment.jobs.empty()) {
        try {
            return runJob(model, segment.commands, result);
        } catch (const driver::JobError& e) {
            throw RunError(withFailingOp(model.artifact->manifest, stream, e));
        }
    }
    const auto inJob = [&](const CommandJob& job) {
        return " (in the job of commands " + std::to_string(job.begin) + ".." + std::to_string(job.end) +
               " of the streamed section '" + model.artifact->manifest.segments[index].section + "')";
    };
    std::optional<uint64_t> start;
    uint64_t finish = 0;
    for (const CommandJob& job : segment.jobs) {
        const std::vector<std::byte> bytes = jobBytes(stream, job);
        const driver::CommandBuffer buffer = driver_.writeCommands(model.staging, bytes);
        driver::JobResult ran;
        try {
            ran = runJob(model, buffer, result);
        } catch (const driver::JobError& e) {
            throw RunError(withFailingOp(model.artifact->manifest, bytes, e) + inJob(job));
        } catch (const RunError& e) {
            throw RunError(e.what() + inJob(job));
        }
        if (!start) start = ran.startCycle;
        finish = ran.startCycle + ran.cycles;
    }
    return {*start, finish - *start};
}

RunResult Runtime::run(const LoadedModel& model, const std::map<std::string, Tensor>& inputs,
                       const std::set<std::string>& resident) {
    const ArtifactManifest& manifest = model.artifact->manifest;
    for (const std::string& name : resident) {
        if (inputs.contains(name)) throw InputError("input '" + name + "' is both given and resident in device memory");
    }
    for (const TensorBinding& binding : manifest.inputs) {
        if (resident.contains(binding.name)) continue;
        const auto it = inputs.find(binding.name);
        if (it == inputs.end()) throw InputError("missing input '" + binding.name + "'");
        const Tensor& tensor = it->second;
        if (tensor.dtype != binding.dtype || tensor.shape != binding.shape) {
            throw InputError("input '" + binding.name + "': expected " +
                             std::string(dtypeName(binding.dtype)) + shapeString(binding.shape) +
                             ", got " + std::string(dtypeName(tensor.dtype)) +
                             shapeString(tensor.shape));
        }
        driver_.write(model.context, binding.dramOffset, tensor.bytes);
    }
    for (const auto& [name, tensor] : inputs) {
        bool known = false;
        for (const TensorBinding& binding : manifest.inputs) known = known || binding.name == name;
        if (!known) throw InputError("the model has no input named '" + name + "'");
    }

    RunResult result;
    std::optional<uint64_t> start;
    uint64_t end = 0;
    for (size_t i = 0; i < model.segments.size(); ++i) {
        const SegmentRecord& segment = manifest.segments.at(i);
        if (!segment.uploads.empty()) {
            if (!start) start = driver_.nowCycles();
            end = uploadWeights(model, segment);
        }
        if (segment.cpu) {
            if (!start) start = driver_.nowCycles();
            end = runOnHost(model, segment, model.segments[i].kernel);
        } else {
            const driver::JobResult job = runSegment(model, i, result);
            if (!start) start = job.startCycle;
            end = job.startCycle + job.cycles;
        }
    }
    result.job = {start.value_or(0), end - start.value_or(0)};
    // Data-dependent sizes cut the outputs they pad (to at most their bound).
    std::map<std::string, int64_t> sizes;
    for (const TensorBinding& binding : manifest.sizes) {
        Tensor size = Tensor::zeros(DType::Int64, {});
        driver_.read(model.context, binding.dramOffset, size.bytes);
        sizes[binding.name] = size.as<int64_t>()[0];
    }
    for (const TensorBinding& binding : manifest.outputs) {
        Tensor output = Tensor::zeros(binding.dtype, binding.shape);
        driver_.read(model.context, binding.dramOffset, output.bytes);
        Shape actual = binding.shape;
        for (size_t d = 0; d < binding.symbols.size(); ++d) {
            if (const auto size = sizes.find(binding.symbols[d]); size != sizes.end()) actual[d] = std::clamp<int64_t>(size->second, 0, actual[d]);
        }
        result.outputs.push_back(actual == binding.shape ? std::move(output) : cropOrPad(output, actual));
    }
    return result;
}

void Runtime::recordHost(trace::EventType type, uint32_t opId, uint64_t from, uint64_t to, uint64_t bytes) {
    if (!host_.trace) return;
    if (!hostUnit_) hostUnit_ = host_.trace->addUnit("host cpu", trace::UnitKind::Host);
    trace::Event e;
    e.type = type;
    e.unit = *hostUnit_;
    e.opId = opId;
    e.start = from;
    e.end = to;
    e.bytes = bytes;
    host_.trace->record(e);
}

void Runtime::writeWeights(const LoadedModel& model, uint64_t offset, uint64_t source, uint64_t bytes) {
    if (host_.timingOnly) {
        driver_.writeTimingOnly(model.context, offset, bytes);
    } else {
        const std::vector<std::byte>& weights = model.artifact->sections.at(kWeightsSection);
        driver_.write(model.context, offset, std::span(weights).subspan(source, bytes));
    }
}

uint64_t Runtime::uploadWeights(const LoadedModel& model, const SegmentRecord& segment) {
    for (const WeightUpload& upload : segment.uploads) {
        const uint64_t from = driver_.nowCycles();
        writeWeights(model, upload.dramOffset, upload.source, upload.bytes);
        recordHost(trace::EventType::WeightUpload, upload.opId, from, driver_.nowCycles(), upload.bytes);
    }
    return driver_.nowCycles();
}

uint64_t Runtime::runOnHost(const LoadedModel& model, const SegmentRecord& segment, CpuCode::Kernel kernel) {
    const auto record = [&](trace::EventType type, uint64_t from, uint64_t to, uint64_t bytes) {
        recordHost(type, segment.opId, from, to, bytes);
    };

    std::vector<Tensor> tensors;
    uint64_t copied = 0;
    const uint64_t copyIn = driver_.nowCycles();
    // A weight the host already holds (the artifact's weights section) is read there; the
    // other inputs are copied out of device memory.
    for (const TensorBinding& binding : segment.inputs) {
        Tensor& tensor = tensors.emplace_back(Tensor::zeros(binding.dtype, binding.shape));
        if (binding.imageOffset >= 0) {
            const std::vector<std::byte>& weights = model.artifact->sections.at(kWeightsSection);
            const auto image = std::span(weights).subspan(static_cast<size_t>(binding.imageOffset), tensor.bytes.size());
            std::copy(image.begin(), image.end(), tensor.bytes.begin());
            continue;
        }
        driver_.read(model.context, binding.dramOffset, tensor.bytes);
        copied += tensor.bytes.size();
    }
    const uint64_t compute = driver_.nowCycles();
    record(trace::EventType::HostCopyIn, copyIn, compute, copied);

    for (const TensorBinding& binding : segment.outputs) tensors.push_back(Tensor::zeros(binding.dtype, binding.shape));
    std::vector<void*> buffers;
    for (Tensor& tensor : tensors) buffers.push_back(tensor.bytes.data());
    if (const int64_t status = kernel(buffers.data()); status != 0) {
        throw RunError(opLabel(model.artifact->manifest, segment.opId) + " on the host CPU: " +
                       (status == 1 ? std::string("an index input holds a value outside the indexed axis")
                                    : "its kernel failed with status " + std::to_string(status)));
    }
    driver_.hostCompute(static_cast<uint64_t>(std::ceil(static_cast<double>(segment.operations) / host_.cpuOpsPerCycle)));
    const uint64_t copyOut = driver_.nowCycles();
    record(trace::EventType::HostKernel, compute, copyOut, 0);

    copied = 0;
    for (size_t i = 0; i < segment.outputs.size(); ++i) {
        const Tensor& tensor = tensors[segment.inputs.size() + i];
        driver_.write(model.context, segment.outputs[i].dramOffset, tensor.bytes);
        copied += tensor.bytes.size();
    }
    const uint64_t done = driver_.nowCycles();
    record(trace::EventType::HostCopyOut, copyOut, done, copied);
    return done;
}

void Runtime::unload(const LoadedModel& model) { release(model); }

}  // namespace npusim::runtime
