"""Trainer integrations that live inside jobenv: one module per framework, imported only by its users (each
needs its framework installed; a missing one is a MissingExtraError naming the ``pip install`` that fixes it).

- :mod:`.nemo_gym`: a NeMo Gym resources server and agent (``pip install 'jobenv[nemo-gym]'``).
- :mod:`.evalscope`: jobenv's splits as an evalscope benchmark (``pip install 'jobenv[evalscope]'``).
- :mod:`.skyrl`: a SkyRL-Gym env for ``jobenv serve`` and a generator that masks errored episodes
  (``pip install 'jobenv[skyrl]'``).
"""

__all__: list[str] = []
