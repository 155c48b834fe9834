"""Writing a directory of plots all or nothing: drawn into a temporary sibling directory, which
replaces the final one only when every plot is drawn."""
import os
import shutil
import tempfile


class NotAPlotDirectory(Exception):
    """The final directory exists and holds something else than the plots: it is not replaced."""


def publish_plots(final, draw, names):
    """Calls draw(staging_directory), then moves the staging directory to `final`, which may
    exist only as an earlier run's plots (files among `names`)."""
    if os.path.lexists(final):
        if not os.path.isdir(final) or os.path.islink(final):
            raise NotAPlotDirectory(f"{final} exists and is not a directory of plots")
        others = sorted(set(os.listdir(final)) - set(names))
        if others:
            raise NotAPlotDirectory(f"{final} holds other files than plots ({', '.join(others[:3])}); "
                                    "choose another directory")
    parent = os.path.dirname(os.path.abspath(final))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".plots-", dir=parent)
    try:
        draw(staging)
        os.chmod(staging, 0o755)
        shutil.rmtree(final, ignore_errors=True)
        os.rename(staging, final)
    except Exception:
        shutil.rmtree(staging, ignore_errors=True)
        raise
