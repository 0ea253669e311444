"""The training-error experiment of Collobert's thesis, chapter 7 (Table 7.1): the published
numbers.

The protocol is :func:`kernelnb.largescale.hessian_study` (training error and the factors that
make the Hessian block-diagonal, recorded along training), run on the available data by
``benchmarks/bench_table71.py``.
"""
from __future__ import annotations

__all__ = ["PUBLISHED_TABLE_7_1"]

#: Collobert's thesis, Table 7.1 (published): training error (%) with no validation set, on
#: (Forest, Connect-4), of MLPs of 500 hidden units trained with the squared error (MSE), with
#: a tanh output and the squared error, with the cross-entropy (CE), and of a mixture of experts
#: trained with the squared error (fewer parameters than the MLPs).
PUBLISHED_TABLE_7_1 = {"MLP+MSE": (11.6, 6.0), "MLP+Tanh+MSE": (7.1, 1.4), "MLP+CE": (4.4, 0.0),
                       "MoE+MSE": (4.0, 0.2)}
