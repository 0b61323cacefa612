"""Repository rule: a user's OPUS-MT checkpoint, if there is one, as @opus_checkpoint.

Found through $PTEFORGE_OPUS_CHECKPOINT (e.g. `--repo_env=PTEFORGE_OPUS_CHECKPOINT=<dir>`
on the Bazel command line) or the Hugging Face cache ($HF_HOME/hub or
~/.cache/huggingface/hub, models--Helsinki-NLP--opus-mt-en-fr). Its defs.bzl says
which: OPUS_CHECKPOINT is the label of the checkpoint's config.json, or None (then
//models uses seeded random weights). The checkpoint's files are symlinked, not copied.
"""

_ENV = "PTEFORGE_OPUS_CHECKPOINT"
_HF_REPO = "models--Helsinki-NLP--opus-mt-en-fr"

def _hf_snapshot(rctx):
    home = rctx.os.environ.get("HF_HOME", rctx.os.environ.get("HOME", "") + "/.cache/huggingface")
    repo = rctx.path(home + "/hub/" + _HF_REPO)
    ref = repo.get_child("refs").get_child("main")
    if ref.exists:
        snapshot = repo.get_child("snapshots").get_child(rctx.read(ref).strip())
        if snapshot.exists:
            return snapshot
    return None

def _opus_checkpoint_impl(rctx):
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    given = rctx.os.environ.get(_ENV, "")
    directory = rctx.path(given) if given else _hf_snapshot(rctx)
    if directory == None:
        rctx.file("BUILD.bazel", 'filegroup(name = "files", visibility = ["//visibility:public"])\n')
        rctx.file("defs.bzl", "# No OPUS-MT checkpoint was found.\nOPUS_CHECKPOINT = None\n")
        return
    if not directory.get_child("config.json").exists:
        fail("%s=%s has no config.json: it must be a Hugging Face MarianMT checkpoint directory " % (_ENV, directory) +
             "(config.json, model.safetensors, source.spm, target.spm, vocab.json).")
    for entry in directory.readdir():
        rctx.symlink(entry, "checkpoint/" + entry.basename)
    rctx.file("BUILD.bazel", """package(default_visibility = ["//visibility:public"])

# The OPUS-MT checkpoint at {directory}
filegroup(name = "files", srcs = glob(["checkpoint/**"]))

exports_files(["checkpoint/config.json"])
""".format(directory = directory))
    rctx.file("defs.bzl", 'OPUS_CHECKPOINT = "@%s//:checkpoint/config.json"\n' % rctx.name)

opus_checkpoint = repository_rule(
    implementation = _opus_checkpoint_impl,
    environ = [_ENV, "HF_HOME", "HOME"],
    local = True,
)
