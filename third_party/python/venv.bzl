"""Locates the Python venv that ./bazelw builds from requirements_lock.txt."""

VENV_ENV = "PTEFORGE_VENV"

def venv_path(rctx):
    """Returns the path of the pinned venv, failing with instructions if it is missing.

    Args:
      rctx: the repository_ctx of a rule that lists VENV_ENV in its `environ`.

    Returns:
      The venv's root directory as a path.
    """
    venv = rctx.os.environ.get(VENV_ENV, "")
    if not venv:
        fail("%s is not set. Run Bazel through ./bazelw, which installs the Python " % VENV_ENV +
             "environment from third_party/python/requirements_lock.txt and sets it.")
    path = rctx.path(venv)
    if not path.get_child(".pteforge-complete").exists:
        fail("the Python environment %s is incomplete; run ./bazelw again to (re)install it." % venv)
    return path

def site_packages(rctx, venv):
    """Returns the site-packages directory of `venv` (a path)."""
    result = rctx.execute([
        str(venv.get_child("bin").get_child("python3")),
        "-c",
        "import sysconfig; print(sysconfig.get_paths()['purelib'])",
    ])
    if result.return_code != 0:
        fail("cannot run the venv's python3 in %s: %s" % (venv, result.stderr))
    return rctx.path(result.stdout.strip())
