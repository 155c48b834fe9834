"""The fuzz targets in the test suite: each replays its seed corpus and deterministic mutations
of it (fuzz_replay.cpp); a crash, sanitizer report or exception other than InputError fails.
Coverage-guided runs are scripts/fuzz.sh (clang, libFuzzer).

    replay_seeds.py [TARGET...]     every target, or these (built in $NPUSIM_FUZZ_BIN)"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from seed_corpora import write_corpora  # noqa: E402

# Mutations per target: about the same time each (the ONNX importer runs ONNX's checker and
# shape inference per input).
MUTATIONS = {"fuzz_arch_config": 20000, "fuzz_artifact": 5000, "fuzz_commands": 20000, "fuzz_npy": 5000,
             "fuzz_tensor_proto": 5000, "fuzz_onnx_import": 600}


def main():
    failures = []
    with tempfile.TemporaryDirectory(prefix="npusim_fuzz_") as work:
        corpora = write_corpora(Path(work) / "seeds")
        chosen = sys.argv[1:] or list(corpora)
        unknown = [target for target in chosen if target not in corpora]
        if unknown:
            print(f"replay_seeds.py: no fuzz target {', '.join(unknown)}", file=sys.stderr)
            return 2
        for target in chosen:
            corpus = corpora[target]
            binary = Path(os.environ["NPUSIM_FUZZ_BIN"]) / target
            result = subprocess.run([binary, "--mutations", str(MUTATIONS[target]), corpus], cwd=work,
                                    capture_output=True, text=True, timeout=600)
            print(f"{target}: {(result.stdout + result.stderr).strip().splitlines()[-1:]}")
            if result.returncode != 0:
                failures.append(f"{target} (exit {result.returncode}): {result.stderr[-2000:]}")
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
