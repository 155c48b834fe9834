#include "cli/sweep/sweep_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "arch/checksum.h"
#include "arch/error.h"
#include "reports/text_format.h"
#include "cli/sweep/sweep_db.h"
#include "cli/sweep/sweep_point.h"

extern char** environ;

namespace npusim::cli {
namespace {

using Clock = std::chrono::steady_clock;

std::string duration(double seconds) {
    const auto s = static_cast<long long>(seconds + 0.5);
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
    return buffer;
}

/// Progress of a sweep: a line per finished point, and on a terminal a bar with the ETA
/// redrawn under them.
class Progress {
public:
    explicit Progress(size_t total) : total_(total), terminal_(isatty(STDOUT_FILENO)), start_(Clock::now()) { draw(); }

    void finished(const SweepPoint& point, const std::optional<SweepRow>& row) {
        ++done_;
        std::string what = point.model.stem().string() + " " + point.params + ": ";
        if (!row) {
            what += "no result (the worker ended without one)";
        } else if (row->status != "ok") {
            what += "failed: " + row->error;
        } else {
            what += std::to_string(row->totalCycles) + " cycles, " + reports::energyText(row->energyPj) + ", " +
                    reports::fixedText(row->areaMm2, 2) + " mm2";
        }
        if (terminal_) std::printf("\r\033[K");
        std::printf("[%zu/%zu] %s (ETA %s)\n", done_, total_, what.c_str(), duration(eta()).c_str());
        draw();
    }

    void end() {
        if (terminal_) std::printf("\r\033[K");
        std::fflush(stdout);
    }

private:
    double eta() const {
        const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
        return done_ ? elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_) : 0.0;
    }

    void draw() {
        if (terminal_ && total_ > 0) {
            constexpr size_t kWidth = 30;
            const size_t filled = kWidth * done_ / total_;
            std::printf("\r\033[K[%s%s] %zu/%zu points, ETA %s", std::string(filled, '#').c_str(),
                        std::string(kWidth - filled, '.').c_str(), done_, total_,
                        done_ ? duration(eta()).c_str() : "?");
        }
        std::fflush(stdout);
    }

    size_t total_, done_ = 0;
    bool terminal_;
    Clock::time_point start_;
};

/// Starts `argv` with stdout and stderr sent to `log` (or /dev/null); returns its pid.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log, bool searchPath) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string out = log.empty() ? "/dev/null" : log;
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int error = searchPath ? posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ)
                                 : posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) throw RunError("cannot start '" + argv[0] + "': " + std::strerror(error));
    return pid;
}

std::vector<std::string> workerCommand(const std::filesystem::path& executable, const SweepSpec& spec,
                                       const std::filesystem::path& database, const std::string& index) {
    return {executable.string(), "sweep-point", std::filesystem::absolute(spec.file).string(), "--db",
            std::filesystem::absolute(database).string(), "--index", index};
}

struct Pending {
    SweepPoint point;
    std::string key;
};

/// Runs one point in a child forked from this process, which has its model read already:
/// the child compiles from the imported graph, simulates (its own SystemC elaboration: this
/// process never elaborates), writes its row through its own database connection and exits.
pid_t forkPoint(const Pending& p, ImportedModel& model, bool timingOnly, const std::filesystem::path& database) {
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) throw RunError(std::string("cannot start a sweep worker: ") + std::strerror(errno));
    if (pid > 0) return pid;
    int status = 0;
    try {
        // Quiet, as the spawned workers are; SQLite connections must not cross a fork, so
        // the child opens its own (and never touches its parent's).
        if (const int null = open("/dev/null", O_WRONLY); null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
            close(null);
        }
        SweepDatabase db(database);
        db.insert(runSweepPoint(p.point, timingOnly, std::move(model)));  // the child's own copy
    } catch (...) {
        status = 1;  // no row: the parent counts the point as lost
    }
    std::_Exit(status);
}

void runLocal(const SweepSpec& spec, const std::filesystem::path& database, unsigned jobs, const std::vector<Pending>& pending,
              Progress& progress, SweepOutcome& outcome) {
    const SweepDatabase db(database);
    std::map<pid_t, const Pending*> running;
    // The model (at the dims) the next points share, read once; re-read when they change.
    std::optional<std::pair<std::filesystem::path, std::map<std::string, int64_t>>> importedFor;
    ImportedModel imported;
    size_t next = 0;
    while (next < pending.size() || !running.empty()) {
        while (next < pending.size() && running.size() < jobs) {
            const Pending& p = pending[next++];
            if (!importedFor || importedFor->first != p.point.model || importedFor->second != p.point.dims) {
                imported = importSweepModel(p.point);
                importedFor.emplace(p.point.model, p.point.dims);
            }
            running[forkPoint(p, imported, spec.timingOnly, database)] = &p;
        }
        int status = 0;
        const pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0 && errno != EINTR) throw RunError(std::string("waiting for the sweep's workers failed: ") + std::strerror(errno));
        const auto it = running.find(pid);
        if (it == running.end()) continue;
        const Pending& p = *it->second;
        running.erase(it);
        const std::optional<SweepRow> row = db.row(p.key);
        progress.finished(p.point, row);
        if (!row) ++outcome.lost;
        else if (row->status != "ok") ++outcome.failed;
    }
}

std::string shellQuoted(const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

/// Array tasks per submission: Slurm's default MaxArraySize is 1001 (task ids 0..1000).
constexpr size_t kArrayTasks = 1000;

void runSlurm(const SweepSpec& spec, const std::filesystem::path& database, const SweepBackend& backend,
              const std::filesystem::path& executable, const std::vector<Pending>& pending, Progress& progress,
              SweepOutcome& outcome) {
    // The job array's script, its task lists and the tasks' logs live beside the database. A
    // task runs the point on line SLURM_ARRAY_TASK_ID + 1 of the list the array was given.
    const std::filesystem::path directory = std::filesystem::absolute(database).string() + ".slurm";
    std::filesystem::create_directories(directory);
    const std::filesystem::path script = directory / "point.sh";
    {
        std::ofstream out(script);
        out << "#!/bin/sh\n# One point of an npusim sweep: $1 lists the points, a line per array task.\n"
            << "index=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" \"$1\")\nexec";
        for (const std::string& arg : workerCommand(executable, spec, database, "")) {
            if (!arg.empty()) out << " " << shellQuoted(arg);
        }
        out << " \"$index\"\n";
        if (!out) throw RunError("cannot write '" + script.string() + "'");
    }
    std::filesystem::permissions(script, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);

    const SweepDatabase db(database);
    std::vector<bool> reported(pending.size(), false);
    // The tasks write their rows; the database shows which points finished.
    auto collect = [&] {
        for (size_t i = 0; i < pending.size(); ++i) {
            if (reported[i]) continue;
            if (const std::optional<SweepRow> row = db.row(pending[i].key)) {
                reported[i] = true;
                progress.finished(pending[i].point, row);
                if (row->status != "ok") ++outcome.failed;
            }
        }
    };
    for (size_t first = 0; first < pending.size(); first += kArrayTasks) {
        const size_t count = std::min(kArrayTasks, pending.size() - first);
        const std::filesystem::path list = directory / ("points-" + std::to_string(first / kArrayTasks) + ".txt");
        {
            std::ofstream out(list);
            for (size_t i = first; i < first + count; ++i) out << pending[i].point.index << "\n";
            if (!out) throw RunError("cannot write '" + list.string() + "'");
        }
        std::string array = "0-" + std::to_string(count - 1);
        if (backend.jobs > 0) {
            array += '%';
            array += std::to_string(backend.jobs);
        }
        std::vector<std::string> command{"sbatch", "--parsable", "--wait", "--job-name=npusim-sweep", "--array=" + array,
                                         "--output=" + (directory / "point-%A_%a.log").string()};
        for (size_t start = 0; start < backend.slurmOptions.size();) {
            const size_t end = std::min(backend.slurmOptions.find(' ', start), backend.slurmOptions.size());
            if (end > start) command.push_back(backend.slurmOptions.substr(start, end - start));
            start = end + 1;
        }
        command.push_back(script.string());
        command.push_back(list.string());
        const pid_t sbatch = spawn(command, (directory / "sbatch.log").string(), true);
        int status = 0;
        while (waitpid(sbatch, &status, WNOHANG) == 0) {
            collect();
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
        }
        collect();
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            bool missing = false;
            for (size_t i = first; i < first + count; ++i) missing = missing || !reported[i];
            if (missing) {
                std::string last;
                if (std::ifstream log(directory / "sbatch.log"); log) {
                    for (std::string line; std::getline(log, line);) {
                        if (!line.empty()) last = line;
                    }
                }
                throw RunError("sbatch failed" + (last.empty() ? std::string() : ": " + last) +
                               "; run the sweep again to retry the points without a result");
            }
        }
    }
    for (size_t i = 0; i < pending.size(); ++i) {
        if (!reported[i]) {
            progress.finished(pending[i].point, std::nullopt);
            ++outcome.lost;
        }
    }
}

}  // namespace

SweepOutcome runSweep(const SweepSpec& spec, const std::filesystem::path& database, const SweepBackend& backend,
                      const std::filesystem::path& executable) {
    if (backend.kind != "local" && backend.kind != "slurm") {
        throw InputError("--backend: no backend '" + backend.kind + "' (local, slurm)");
    }
    const std::vector<SweepPoint> points = expandSweep(spec);
    SweepOutcome outcome;
    outcome.points = points.size();
    std::vector<Pending> pending;
    {
        const SweepDatabase db(database);
        const std::set<std::string> finished = db.finishedKeys();
        std::map<std::filesystem::path, std::string> modelHashes;  // a model file is hashed once
        for (const SweepPoint& point : points) {
            auto [hash, added] = modelHashes.try_emplace(point.model);
            if (added) hash->second = fileSha256(point.model.string());
            std::string key = sweepPointKey(point, spec.timingOnly, hash->second);
            if (finished.contains(key)) {
                ++outcome.skipped;
            } else {
                pending.push_back({point, std::move(key)});
            }
        }
    }
    const unsigned jobs = backend.jobs ? backend.jobs : std::max(1u, std::thread::hardware_concurrency());
    std::printf("sweep: %zu points (%zu models), %zu already in %s, %zu to run on %s%s\n", points.size(),
                spec.models.size(), outcome.skipped, database.string().c_str(), pending.size(), backend.kind.c_str(),
                backend.kind == "local" ? (" with " + std::to_string(jobs) + " jobs").c_str() : "");
    outcome.ran = pending.size();
    if (pending.empty()) return outcome;
    Progress progress(pending.size());
    if (backend.kind == "local") {
        runLocal(spec, database, jobs, pending, progress, outcome);
    } else {
        runSlurm(spec, database, backend, executable, pending, progress, outcome);
    }
    progress.end();
    return outcome;
}

}  // namespace npusim::cli
