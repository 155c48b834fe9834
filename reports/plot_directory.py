"""Writing a directory of plots all or nothing: drawn into a temporary sibling directory, which
replaces the final one only when every plot is drawn."""
import os
import shutil
import tempfile


def publish_plots(final, draw):
    """Calls draw(staging_directory), then moves the staging directory to `final`."""
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
