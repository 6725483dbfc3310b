"""nki.collectives of the numpy model: one rank only (a replica group of
single ranks); anything needing several devices is an error."""
from nki._model import ReplicaGroup, all_reduce, all_gather, reduce_scatter, all_to_all, rank_id  # noqa: F401
