"""The Bergamot exporter factory refuses bad arguments and models of another
architecture with an ExportError that says what is wrong."""

import os

import pytest

from models.bergamot import export, package
from models.bergamot.marian_binary import read_model
from models.translation_program import FAMILY_CONSTANTS, TRANSLATION_CONSTANTS
from pteforge import ExportError
from pteforge.support import testing


def test_bad_arguments():
    with pytest.raises(ExportError, match="direction 'xx': expected one of enpt, pten"):
        export.make_exporter(direction="xx")
    with pytest.raises(ExportError, match="quantization='int4': expected one of none, int8"):
        export.make_exporter(quantization="int4")
    with pytest.raises(ExportError, match="max_rows=2: the Bergamot export needs at least 4 rows"):
        export.make_exporter(max_rows="2")


def test_a_model_of_another_architecture(monkeypatch):
    def without_an_item(path):
        model = read_model(path)
        del model.tensors["decoder_l1_rnn_Wf"]
        return model

    monkeypatch.setattr(export, "read_model", without_an_item)
    with pytest.raises(ExportError, match=r"model\.enpt\.intgemm\.alphas\.bin is not the Bergamot tiny "
                                          r"architecture .*decoder_l1_rnn_Wf"):
        export.make_exporter(direction="enpt")


def test_a_valid_configuration_declares_the_translation_constants():
    exporter = export.make_exporter(direction="pten", max_rows="4", max_source="16")
    assert exporter.module.max_target == 41  # ceil(2.5 x 16) + 1 positions
    constants = exporter._constants
    assert set(TRANSLATION_CONSTANTS + FAMILY_CONSTANTS["bergamot"]) <= set(constants)
    assert constants["family"] == "bergamot" and constants["max_target_length"] == 41
    assert constants["max_length_factor"] == 2.5 and constants["num_beams"] == 1
    assert constants["vocab"].split("\n")[:2] == ["</s>", "<unk>"]
    assert constants["shortlist"].numel() == os.path.getsize(package.find("pten").shortlist)  # the file, whole


if __name__ == "__main__":
    testing.main(__file__)
