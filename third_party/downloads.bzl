"""Pinned files that ./bazelw downloads with pip (see downloads.txt), for repository rules."""

DOWNLOADS_ENV = "PTEFORGE_DOWNLOADS"

def pinned_download(rctx, pins, name):
    """Returns the path of a pinned download, checked against its sha256.

    Args:
      rctx: the repository_ctx (its rule must list DOWNLOADS_ENV in `environ`).
      pins: the label of third_party/downloads.txt.
      name: the file name, as in downloads.txt.

    Returns:
      The file's path.
    """
    sha256 = None
    for line in rctx.read(pins).splitlines():
        fields = [field for field in line.split(" ") if field]
        if fields and not line.startswith("#") and fields[0] == name:
            sha256 = fields[1]
    if not sha256:
        fail("%s is not pinned in third_party/downloads.txt" % name)
    directory = rctx.os.environ.get(DOWNLOADS_ENV, "")
    path = rctx.path(directory + "/" + name) if directory else None
    if not path or not path.exists:
        fail("%s is missing (%s=%r). Run Bazel through ./bazelw, which downloads it with pip." %
             (name, DOWNLOADS_ENV, directory))
    result = rctx.execute(["sha256sum", str(path)])
    got = result.stdout.split(" ")[0]
    if result.return_code != 0 or got != sha256:
        fail("%s: sha256 %s, expected %s (third_party/downloads.txt). Delete it and run ./bazelw to fetch it again." %
             (path, got, sha256))
    return path
