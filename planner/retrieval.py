"""TEMPORARY alias of the modules this file was split into (planner.encoder, planner.knn, planner.subgoal_mapper).

Kept only so that processes started before the split (which import it lazily) keep working; delete it.
"""
from planner.encoder import ENCODER_ID, Encoder, VectorStore, get_encoder, texts_digest  # noqa: F401
from planner.knn import KNNIndex  # noqa: F401
from planner.subgoal_mapper import SubgoalMapper, humanize  # noqa: F401
