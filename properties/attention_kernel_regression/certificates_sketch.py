"""Certificates of paper 004's Section L claims that rest on the implementation's sketches (Algorithm 8,
W_g, Algorithm 7) and on seeded statistical trials (issue 22); registered on
:data:`.certificates.CERTIFIERS`.  Those not certified say why."""

from __future__ import annotations

from .certificates import CERTIFIERS

__all__: list[str] = []

_SKETCH = ("needs the implementation's sketch (Algorithm 8's SRHT/TensorSRHT, W_g) rebuilt in balls from its "
           "random bits; not built yet")

for _cid, _target in (("attention_kernel_regression.thmL.5", "violation"),
                      ("attention_kernel_regression.thmL.3.allxy", "violation"),
                      ("attention_kernel_regression.thmL.3.allxy", "repair"),
                      ("attention_kernel_regression.thmL.1.p1", "violation"),
                      ("attention_kernel_regression.thmL.8", "violation")):
    CERTIFIERS.cannot(_cid, target=_target, reason=_SKETCH)
