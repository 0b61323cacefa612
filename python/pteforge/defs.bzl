"""pte_export, the rule exporting a model to a .pte as a build action (docs/exporting.md).
Its definition sits with the project's other rules, in bazel/pte_export.bzl; this is the
load point users know."""

load("//bazel:pte_export.bzl", _pte_export = "pte_export")

pte_export = _pte_export
