"""Retrieval: kNN over task texts, embedding cache, sub-goal mapping."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from planner.retrieval.encoder import get_encoder
from planner.retrieval.knn import KNNIndex
from planner.retrieval.subgoal_mapper import SubgoalMapper, humanize

POOL = [
    "put a clean apple in the fridge",
    "heat a mug of coffee in the microwave and put it on the table",
    "slice a tomato and place a slice on the counter",
    "turn on the desk lamp while holding the alarm clock",
    "put two pillows on the sofa",
    "wash the apple in the sink and put it in the refrigerator",
]


def test_encoder_shape_and_dtype() -> None:
    vecs = get_encoder().encode(["a", "b c"])
    assert vecs.shape == (2, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)


def test_knn_right_neighbours(tmp_path: Path) -> None:
    index = KNNIndex.build(POOL, "pool-test", cache_dir=tmp_path)
    assert set(index.query("rinse an apple and chill it in the fridge", k=2)) == {0, 5}
    assert index.query("look at the clock under the lamp", k=1) == [3]
    assert index.query("put a couple of pillows on the couch", k=1) == [4]
    assert 0 not in index.query(POOL[0], k=3, exclude={0})
    assert index.query(POOL[1], k=1) == [1]
    assert len(index.query("x", k=100)) == len(POOL)


def test_embeddings_cached_by_content(tmp_path: Path) -> None:
    KNNIndex.build(POOL, "p", cache_dir=tmp_path)
    files = list(tmp_path.glob("*.npy"))
    assert len(files) == 1
    again = KNNIndex.build(POOL, "p", cache_dir=tmp_path)
    assert np.array_equal(again.embeddings, np.load(files[0]))
    KNNIndex.build(POOL[:-1], "p", cache_dir=tmp_path)  # other texts, same key: a new file, never stale
    assert len(list(tmp_path.glob("*.npy"))) == 2


LEGAL = ["Navigation Fridge", "PickupObject Apple", "PickupObject Mug", "PutObject Apple Fridge",
         "OpenObject Fridge", "CloseObject Fridge", "ToggleObjectOn Microwave", "SliceObject Tomato", "Stop"]


def test_mapping_pick_up_the_apple() -> None:
    mapper = SubgoalMapper(LEGAL, floor=0.5)
    assert mapper.map("pick up the apple")[0] == "PickupObject Apple"
    assert mapper.map("pickupobject apple") == ("PickupObject Apple", 1.0)
    assert mapper.map("open the refrigerator")[0] == "OpenObject Fridge"
    assert mapper.map("PickObject Mug")[0] == "PickupObject Mug"
    assert mapper.map("the quarterly tax report of a bank")[0] is None


@pytest.mark.parametrize("raw,words", [("PutObject Apple CounterTop", "put apple in counter top"),
                                       ("Navigation SinkBasin", "go to sink basin"), ("Stop", "stop")])
def test_humanize(raw: str, words: str) -> None:
    assert humanize(raw) == words
