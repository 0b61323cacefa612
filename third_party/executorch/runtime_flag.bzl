"""runtime_flag: a string build setting restricted to a list of values (no Skylib here)."""

def _runtime_flag_impl(ctx):
    if ctx.build_setting_value not in ctx.attr.values:
        fail("%s=%s: choose one of %s" % (ctx.label, ctx.build_setting_value, ", ".join(ctx.attr.values)))
    return []

runtime_flag = rule(
    implementation = _runtime_flag_impl,
    build_setting = config.string(flag = True),
    attrs = {"values": attr.string_list(mandatory = True)},
)
