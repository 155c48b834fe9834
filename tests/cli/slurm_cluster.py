#!/usr/bin/python3
"""Throw-away single-node Slurm cluster for tests (stdlib only).

    with SlurmCluster(workdir) as env:
        subprocess.run(["sbatch", "--wait", ...], env=env, check=True)

Everything (slurm.conf, state, spool, logs, pid files, munge key and socket)
lives under `workdir`; nothing under /etc is touched. A private munged serves
a private socket, which Slurm uses via AuthInfo=socket=PATH. Must run as root
(SlurmUser=SlurmdUser=root, as in a container).
"""
import glob
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

START_TIMEOUT = 30  # seconds allowed for __enter__ to get a working cluster
BINARIES = ("munged", "slurmctld", "slurmd", "sinfo", "sbatch", "squeue", "scancel")

# slurm.conf template; {dir} is the absolute workdir.
CONF_TEMPLATE = """\
ClusterName=npusim-test
# Explicit loopback addresses: the hostname need not resolve.
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={dir}/munge/munge.socket
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
MailProg=/bin/true
# Trust the configured CPUs/memory instead of draining on a mismatch.
SlurmdParameters=config_overrides
ReturnToService=2
# Keep teardown fast: SIGKILL cancelled jobs 2 s after SIGTERM.
KillWait=2
# Schedule batch jobs (e.g. array tasks) right away instead of in 3 s batches.
SchedulerParameters=batch_sched_delay=0
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={mem_mb} State=UNKNOWN
PartitionName=main Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""


class SlurmUnavailable(Exception):
    """The cluster could not be started; str(e) is a one-line reason."""


def _free_ports(n):
    """n distinct TCP ports that are free right now (the kernel picks them)."""
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


class SlurmCluster:
    """with SlurmCluster(workdir) as env: ... ; env is a dict for subprocess env=
    (os.environ without inherited SLURM_* variables, plus SLURM_CONF)."""

    def __init__(self, workdir: pathlib.Path, cpus: int = 2):
        self.dir = pathlib.Path(workdir).resolve()
        self.cpus = cpus
        self.procs = {}  # daemon name -> Popen, in start order
        self.env = None

    def __enter__(self) -> dict:
        # On failure Slurm may be unresponsive: skip the polite job cancellation.
        try:
            self._start()
        except OSError as e:
            self._stop(cancel_jobs=False)
            raise SlurmUnavailable(f"cannot start Slurm: {e}") from e
        except BaseException:
            self._stop(cancel_jobs=False)
            raise
        return self.env

    def __exit__(self, *exc):
        self._stop(cancel_jobs=True)

    # ---- start -------------------------------------------------------------

    def _start(self):
        missing = [b for b in BINARIES if not shutil.which(b)]
        if missing:
            raise SlurmUnavailable("missing binaries: " + " ".join(missing))
        if os.geteuid() != 0:
            raise SlurmUnavailable("must run as root (SlurmUser=root)")
        host = socket.gethostname().split(".")[0]  # same as `hostname -s`
        sock = self.dir / "munge" / "munge.socket"
        # AF_UNIX paths are limited to 107 bytes: check munged's socket and the
        # longest slurmstepd socket expected (spool/HOST_JOBID.STEPID).
        step_sock = self.dir / "spool" / f"{host}_9999999.4294967291"
        if max(len(os.fsencode(sock)), len(os.fsencode(step_sock))) > 107:
            raise SlurmUnavailable(f"workdir path too long for unix sockets: {self.dir}")
        deadline = time.monotonic() + START_TIMEOUT

        # Fresh state each time, so a reused workdir does not resurrect old jobs.
        shutil.rmtree(self.dir / "state", ignore_errors=True)
        for sub in ("munge", "state", "spool"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        key = self.dir / "munge" / "munge.key"
        key.unlink(missing_ok=True)
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}

        # --force: munged otherwise refuses a socket dir that is not world-executable.
        self._spawn("munged", ["munged", "--foreground", "--force", f"--socket={sock}",
                               f"--key-file={key}",
                               f"--pid-file={self.dir}/munge/munged.pid",
                               f"--seed-file={self.dir}/munge/munged.seed"])
        self._wait_for("munged socket", sock.exists, deadline, "munged")

        mem_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20 // 2
        ctld_port, slurmd_port = _free_ports(2)
        conf = self.dir / "slurm.conf"
        conf.write_text(CONF_TEMPLATE.format(
            host=host, dir=self.dir, cpus=self.cpus, mem_mb=mem_mb,
            ctld_port=ctld_port, slurmd_port=slurmd_port))
        self.env["SLURM_CONF"] = str(conf)

        self._spawn("slurmctld", ["slurmctld", "-D"])
        ctld_started = time.monotonic()
        self._spawn("slurmd", ["slurmd", "-D"])
        self._wait_for("node idle", lambda: self._query(["sinfo", "-h", "-o", "%T"], 2) == "idle",
                       deadline, "slurmctld", "slurmd")

        # A trivial job proves that scheduling, launch and completion all work.
        # slurmctld's first scheduling pass comes 3 s after it starts (the built-in
        # batch_sched_delay holds until then); sbatch --wait polls after 2 s, then
        # 8 s later. Submitting >= 1.5 s after start lets the first poll succeed.
        time.sleep(max(0.0, ctld_started + 1.5 - time.monotonic()))
        try:
            job = subprocess.run(["sbatch", "--wait", "--output=/dev/null", "--wrap=true"],
                                 cwd=self.dir, env=self.env, capture_output=True, text=True,
                                 timeout=max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise self._failure("test job timed out", "slurmctld", "slurmd") from None
        if job.returncode != 0:
            stderr = " ".join(job.stderr.split())  # keep the reason on one line
            raise self._failure(f"test job failed (rc={job.returncode}: {stderr})",
                                "slurmctld", "slurmd")

    def _spawn(self, name, argv):
        """Start a foreground daemon; early output (before its log file opens) goes to NAME.out."""
        with open(self.dir / f"{name}.out", "wb") as out:
            self.procs[name] = subprocess.Popen(
                argv, env=self.env, cwd=self.dir, stdin=subprocess.DEVNULL,
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def _query(self, argv, timeout):
        """Stripped stdout of a Slurm client command, or None if it fails or hangs."""
        try:
            r = subprocess.run(argv, env=self.env, capture_output=True, text=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        return r.stdout.strip() if r.returncode == 0 else None

    def _wait_for(self, what, ready, deadline, *logs):
        """Poll ready() until true; fail if a daemon exits or the deadline passes."""
        while not ready():
            for name, p in self.procs.items():
                if p.poll() is not None:
                    raise self._failure(f"{name} exited with code {p.returncode}", name)
            if time.monotonic() > deadline:
                raise self._failure(f"timed out after {START_TIMEOUT} s waiting for {what}", *logs)
            time.sleep(0.2)

    def _failure(self, reason, *logs):
        """SlurmUnavailable with the reason and the last lines of the named daemons' logs."""
        tails = []
        for name in logs:
            lines = []
            for path in (self.dir / f"{name}.log", self.dir / f"{name}.out"):
                if path.exists():
                    lines = path.read_text(errors="replace").split("\n")
                    lines = [ln.strip() for ln in lines if ln.strip()][-3:]
                if lines:
                    break
            tails.append(f"{name} log: " + (" | ".join(lines) or "(empty)"))
        return SlurmUnavailable("; ".join([reason] + tails))

    # ---- stop --------------------------------------------------------------

    def _stop(self, cancel_jobs):
        ctld = self.procs.get("slurmctld")
        if cancel_jobs and ctld and ctld.poll() is None:
            # Cancel all jobs so slurmstepd and job processes exit cleanly.
            self._query(["scancel", "--partition=main"], 2)
            for _ in range(50):
                if self._query(["squeue", "-h"], 2) in ("", None):
                    break
                time.sleep(0.2)
        for p in reversed(self.procs.values()):
            if p.poll() is None:
                p.terminate()
        grace = time.monotonic() + 5  # then SIGKILL whatever is still running
        for p in reversed(self.procs.values()):
            try:
                p.wait(timeout=max(0, grace - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs.clear()
        self._kill_stray_steps()

    def _kill_stray_steps(self):
        """Kill slurmstepd sessions that outlived our slurmd (e.g. if slurmctld died
        before jobs could be cancelled). They are recognised by holding our slurmd.log
        open; each slurmstepd leads its own session, which also holds its job's processes."""
        log = str(self.dir / "slurmd.log")
        sessions = set()
        for fd in glob.glob("/proc/[0-9]*/fd/*"):
            try:
                if os.readlink(fd) == log:
                    sessions.add(os.getsid(int(fd.split("/")[2])))
            except OSError:
                pass  # process or fd vanished meanwhile
        sessions.discard(os.getsid(0))  # never our own session
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if os.getsid(int(pid)) in sessions:
                    os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass


def _self_check():
    """Run a 3-task job array on a fresh cluster; return "OK" or what went wrong."""
    with tempfile.TemporaryDirectory(prefix="slurm-") as tmp:
        tmp = pathlib.Path(tmp)
        with SlurmCluster(tmp) as env:
            job = subprocess.run(
                ["sbatch", "--wait", "--array=0-2", "--output=/dev/null",
                 "--wrap=echo $SLURM_ARRAY_TASK_ID > out.$SLURM_ARRAY_TASK_ID"],
                cwd=tmp, env=env, stdout=subprocess.DEVNULL, timeout=120)
        outputs = [(tmp / f"out.{i}").read_text().strip() if (tmp / f"out.{i}").exists()
                   else None for i in range(3)]
    if job.returncode != 0 or outputs != ["0", "1", "2"]:
        return f"FAIL: array job rc={job.returncode}, outputs={outputs}"
    return "OK"


if __name__ == "__main__":
    try:
        result = _self_check()
    except SlurmUnavailable as e:
        result = f"SlurmUnavailable: {e}"
    print(result)
    sys.exit(result != "OK")
