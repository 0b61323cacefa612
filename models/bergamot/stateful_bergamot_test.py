"""StatefulBergamot's entry points, driven as the C++ translator drives them, give the
eager reference's output (itself equal to the native engine): one sentence, a padded
batch of several, and beams reordered through the shared SSRU state."""

import math

import pytest
import torch

from models.bergamot import package
from models.bergamot.marian_binary import read_model
from models.bergamot.reference import EOS, LENGTH_FACTOR, Reference
from models.bergamot.shortlist import read_shortlist
from models.bergamot.stateful_bergamot import StatefulBergamot
from pteforge.support import testing

SOURCES = [
    [1048, 125, 4, 31, 2960, 3, EOS],
    [529, 14, 7, 1911, 33, 2, 16, 880, 12, 92, 450, 3, EOS],
    [8012, 3, EOS],
]


@pytest.fixture(scope="module")
def setup():
    torch.set_num_threads(1)
    files = package.find("enpt")
    model, shortlist = read_model(files.model), read_shortlist(files.shortlist)
    module = StatefulBergamot(model, max_rows=8, max_source=32, max_target=81).eval()
    return module, Reference(model, shortlist), shortlist


def _greedy(module, shortlist, sources):
    """Greedy decoding of a padded batch, each row over its own candidates and length
    limit, each step advancing only the rows still unfinished (what
    cc/seq2seq/bergamot_model.cc and search.cc do)."""
    width = max(map(len, sources))
    ids = torch.tensor([s + [EOS] * (width - len(s)) for s in sources])
    mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in sources])
    union = torch.tensor(shortlist.candidates([i for s in sources for i in s]))
    own = [torch.isin(union, torch.tensor(shortlist.candidates(s))) for s in sources]
    limits = [math.ceil(LENGTH_FACTOR * len(s)) for s in sources]
    outputs, last = [[] for _ in sources], [EOS] * len(sources)
    active = list(range(len(sources)))
    with torch.no_grad():
        module.encode(ids, mask, torch.arange(len(sources)))
        for step in range(max(limits)):
            rows = torch.tensor(active)
            logits = module.decode_step(torch.tensor([[last[row]] for row in active]), mask.index_select(0, rows),
                                        union, rows)
            for i, row in enumerate(active):
                last[row] = int(union[int(torch.argmax(logits[i].masked_fill(~own[row], -math.inf)))])
                if last[row] != EOS:
                    outputs[row].append(last[row])
            active = [row for row in active if last[row] != EOS and step + 1 < limits[row]]
            if not active:
                break
    return outputs


def test_one_sentence_equals_the_reference(setup):
    module, reference, shortlist = setup
    for source in SOURCES:
        assert _greedy(module, shortlist, [source]) == [reference.translate_ids(source)]


def test_a_padded_batch_equals_each_sentence_alone(setup):
    module, reference, shortlist = setup
    assert _greedy(module, shortlist, SOURCES) == [reference.translate_ids(s) for s in SOURCES]


def test_the_int8_embedding_gives_the_same_logits(setup):
    # Wemb as the file stores it (int8 values, one scale), dequantized per gathered row:
    # a quarter of the size, and logits equal to the float32 table's up to rounding
    # (values x (1 / scale) against values / scale).
    module, _, shortlist = setup
    files = package.find("enpt")
    int8 = StatefulBergamot(read_model(files.model), max_rows=8, max_source=32, max_target=81,
                            int8_embedding=True).eval()
    assert int8.embedding_int8.dtype == torch.int8 and not hasattr(int8, "embedding")
    source = torch.tensor([SOURCES[1]])
    candidates = torch.tensor(shortlist.candidates(SOURCES[1]))
    with torch.no_grad():
        outputs = []
        for m in (module, int8):
            m.encode(source, torch.ones_like(source), torch.tensor([0]))
            m.decode_step(torch.tensor([[EOS]]), torch.ones_like(source), candidates, torch.tensor([0]))
            outputs.append(m.decode_step(torch.tensor([[529]]), torch.ones_like(source), candidates, torch.tensor([0])))
    # One float32 rounding per embedding value, carried through 6 decoder layers: logits of
    # magnitude ~10 differ by a few ulps (1.5e-5 seen), and every row keeps its argmax.
    torch.testing.assert_close(outputs[1], outputs[0], rtol=1e-4, atol=1e-4)
    assert torch.equal(outputs[1].argmax(-1), outputs[0].argmax(-1))


def test_encode_resets_the_state(setup):
    module, _, shortlist = setup
    first = _greedy(module, shortlist, [SOURCES[0]])
    _greedy(module, shortlist, [SOURCES[1]])
    assert _greedy(module, shortlist, [SOURCES[0]]) == first
    assert int(module.position) > 0


def test_reorder_cache_moves_the_ssru_state(setup):
    module, _, _ = setup
    source = torch.tensor([SOURCES[0]])
    candidates = torch.arange(64)
    with torch.no_grad():
        module.encode(source, torch.ones_like(source), torch.tensor([0, 0]))
        mask = torch.ones(2, source.shape[1], dtype=torch.int64)
        module.decode_step(torch.tensor([[EOS], [EOS]]), mask, candidates, torch.arange(2))
        module.decode_step(torch.tensor([[5], [9]]), mask, candidates, torch.arange(2))
        before = [state.ssru[:2].clone() for state in module.state]
        module.reorder_cache(torch.tensor([1, 1]))
    for state, old in zip(module.state, before):
        assert torch.equal(state.ssru[0], old[1]) and torch.equal(state.ssru[1], old[1])


def test_a_step_of_some_rows_leaves_the_others(setup):
    # Row 1 stepped alone gives the logits it gets stepped with row 0 (up to the float32
    # rounding of a matmul of another height), and row 0's state stays as it was.
    module, _, _ = setup
    source = torch.tensor([SOURCES[0]])
    candidates = torch.arange(64)
    mask = torch.ones(2, source.shape[1], dtype=torch.int64)
    results = []
    with torch.no_grad():
        for rows in (torch.arange(2), torch.tensor([1])):
            module.encode(source, torch.ones_like(source), torch.tensor([0, 0]))
            module.decode_step(torch.tensor([[EOS], [EOS]]), mask, candidates, torch.arange(2))
            before = [state.ssru[0].clone() for state in module.state]
            tokens = torch.tensor([[5], [9]]).index_select(0, rows)
            results.append(module.decode_step(tokens, mask.index_select(0, rows), candidates, rows)[-1])
        assert all(torch.equal(state.ssru[0], old) for state, old in zip(module.state, before))
    torch.testing.assert_close(results[1], results[0], rtol=1e-5, atol=1e-5)


if __name__ == "__main__":
    testing.main(__file__)
