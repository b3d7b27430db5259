"""A trained policy: its checkpoint file, and the ``ppo`` bot that plays it (NumPy only).

The network is a multilayer perceptron: the observation vector (:mod:`piepmatz.envs.encoding`)
divided by ``OBSERVATION_HIGH``, ``len(hidden)`` tanh layers, then two heads, the logits over
all 2,921 action ids and the value. Illegal actions get the logit ``MASKED`` before any
softmax, so their probability is exactly 0: they are never sampled nor chosen.

**Checkpoint format** (``CHECKPOINT_FORMAT``, version ``CHECKPOINT_VERSION``): a NumPy ``.npz``
archive, read with ``allow_pickle=False``, holding

- ``meta``: a UTF-8 JSON object as a ``uint8`` array: ``format``, ``version``, ``hidden`` (layer
  widths), ``observation_size``, ``num_actions``, and what the training recorded (``players``,
  ``preset``, ``steps``, ``seed``, ``opponents``, the options);
- ``w0``, ``b0``, … ``wK``, ``bK``: the torso's ``float32`` weights and biases (``K+1`` layers,
  ``w0`` of shape ``(observation_size, hidden[0])``);
- ``pi_w``, ``pi_b``: the policy head (``(hidden[-1], num_actions)``), ``v_w``, ``v_b``: the
  value head (``(hidden[-1], 1)``).

Everything is checked when a file is loaded; a file that is not such an archive, of another
version, with a missing or misshapen array or a value that is not finite, raises
:class:`CheckpointError` saying what is wrong.
"""

from __future__ import annotations

import json
import os
import random
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from numpy.lib.npyio import NpzFile

from piepmatz.core.actions import NUM_ACTIONS
from piepmatz.core.view import PlayerView
from piepmatz.envs.encoding import OBSERVATION_HIGH, OBSERVATION_SIZE, encode

CHECKPOINT_FORMAT: Final = "piepmatz-ppo-policy"
CHECKPOINT_VERSION: Final = 1
#: The logit of an illegal action: exp(MASKED - max) is exactly 0 in float32, and unlike -inf it
#: keeps ``p * log p`` finite (0) in the entropy.
MASKED: Final = -1e9
#: Inputs in [0, 1]: each entry divided by its largest value.
INPUT_SCALE: Final = (1.0 / np.maximum(OBSERVATION_HIGH, 1)).astype(np.float32)

Params = dict[str, npt.NDArray[np.float32]]


class CheckpointError(ValueError):
    """A checkpoint file that cannot be read, or is not a policy of this format and version."""


@dataclass
class Checkpoint:
    """The arrays of a policy and what its training recorded (``meta``)."""

    params: Params
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def hidden(self) -> list[int]:
        return list(self.meta["hidden"])


def param_shapes(hidden: Sequence[int]) -> dict[str, tuple[int, ...]]:
    shapes: dict[str, tuple[int, ...]] = {}
    width = OBSERVATION_SIZE
    for k, h in enumerate(hidden):
        shapes[f"w{k}"], shapes[f"b{k}"] = (width, h), (h,)
        width = h
    shapes["pi_w"], shapes["pi_b"] = (width, NUM_ACTIONS), (NUM_ACTIONS,)
    shapes["v_w"], shapes["v_b"] = (width, 1), (1,)
    return shapes


def save_checkpoint(
    path: str | os.PathLike[str], params: Mapping[str, Any], meta: dict[str, Any]
) -> None:
    """Write ``params`` (any arrays, stored as float32) and ``meta`` to ``path`` atomically."""
    arrays = {name: np.asarray(value, dtype=np.float32) for name, value in params.items()}
    header = {
        **meta,
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "observation_size": OBSERVATION_SIZE,
        "num_actions": NUM_ACTIONS,
    }
    arrays["meta"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    target = Path(path)
    partial = target.with_name(target.name + ".partial")
    # A file object, so NumPy does not append ".npz" to the name; the rename keeps a reader from
    # ever seeing half a file.
    with partial.open("wb") as out:
        np.savez(out, **arrays)  # type: ignore[arg-type]
    partial.replace(target)


def load_checkpoint(path: str | os.PathLike[str]) -> Checkpoint:
    """Read and check a checkpoint; :class:`CheckpointError` says what is wrong with a bad one."""
    where = str(path)
    try:
        loaded = np.load(where, allow_pickle=False)
        if not isinstance(loaded, NpzFile):  # a single .npy array
            raise ValueError(where)
        with loaded as archive:
            arrays = {name: archive[name] for name in archive.files}
    except FileNotFoundError:
        raise CheckpointError(f"{where}: no such checkpoint file") from None
    except IsADirectoryError:
        raise CheckpointError(f"{where}: is a directory, not a checkpoint file") from None
    except OSError as exc:
        raise CheckpointError(f"{where}: cannot read it: {exc.strerror or exc}") from None
    except (ValueError, zipfile.BadZipFile, EOFError):
        # NumPy's own words would suggest loading pickles: a checkpoint never holds any.
        raise CheckpointError(
            f"{where}: not a Piepmatz policy checkpoint: not a NumPy .npz archive of number "
            "arrays, as piepmatz train writes"
        ) from None
    if not isinstance(arrays, dict) or "meta" not in arrays:
        raise CheckpointError(f"{where}: not a Piepmatz policy checkpoint (no 'meta' entry)")
    meta = _meta(where, arrays.pop("meta"))
    hidden = meta["hidden"]
    shapes = param_shapes(hidden)
    missing = [name for name in shapes if name not in arrays]
    if missing:
        raise CheckpointError(f"{where}: the arrays {', '.join(missing)} are missing")
    extra = sorted(set(arrays) - set(shapes))
    if extra:
        raise CheckpointError(f"{where}: unexpected arrays {', '.join(extra)}")
    params: Params = {}
    for name, shape in shapes.items():
        value = arrays[name]
        if value.shape != shape or value.dtype != np.float32:
            raise CheckpointError(
                f"{where}: array {name!r} is {value.dtype}{list(value.shape)}, "
                f"expected float32{list(shape)} for hidden layers {hidden}"
            )
        if not np.all(np.isfinite(value)):
            raise CheckpointError(f"{where}: array {name!r} holds values that are not finite")
        params[name] = value
    return Checkpoint(params, meta)


def _meta(where: str, raw: npt.NDArray[Any]) -> dict[str, Any]:
    try:
        meta = json.loads(raw.astype(np.uint8).tobytes().decode())
    except (ValueError, UnicodeDecodeError):
        raise CheckpointError(f"{where}: its 'meta' entry is not JSON text") from None
    if not isinstance(meta, dict) or meta.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(
            f"{where}: not a Piepmatz policy checkpoint (format is not {CHECKPOINT_FORMAT!r})"
        )
    if meta.get("version") != CHECKPOINT_VERSION:
        raise CheckpointError(
            f"{where}: checkpoint version {meta.get('version')!r}; this Piepmatz reads version "
            f"{CHECKPOINT_VERSION}"
        )
    if meta.get("observation_size") != OBSERVATION_SIZE or meta.get("num_actions") != NUM_ACTIONS:
        raise CheckpointError(
            f"{where}: made for observations of {meta.get('observation_size')} entries and "
            f"{meta.get('num_actions')} actions; this Piepmatz has {OBSERVATION_SIZE} and "
            f"{NUM_ACTIONS}"
        )
    hidden = meta.get("hidden")
    if (
        not isinstance(hidden, list)
        or not hidden
        or not all(type(h) is int and h > 0 for h in hidden)
    ):
        raise CheckpointError(f"{where}: 'hidden' must list positive layer widths, not {hidden!r}")
    return meta


def init_params(hidden: Sequence[int], seed: int) -> Params:
    """Orthogonal weights (scaled as in CleanRL's PPO: sqrt 2 in the torso, 0.01 for the policy
    head so that the first policy is near uniform, 1 for the value head), zero biases."""
    rng = np.random.default_rng(seed)
    params: Params = {}
    for name, shape in param_shapes(hidden).items():
        if len(shape) == 1:  # a bias
            params[name] = np.zeros(shape, np.float32)
            continue
        gain = 0.01 if name == "pi_w" else 1.0 if name == "v_w" else np.sqrt(2.0)
        a = rng.standard_normal((max(shape), min(shape)))
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        matrix = q if shape[0] >= shape[1] else q.T
        params[name] = (gain * matrix[: shape[0], : shape[1]]).astype(np.float32)
    return params


_ONE_THREAD: list[bool] = []


def one_blas_thread() -> None:
    """Run NumPy's matrix products on one thread in this process, from now on.

    A move is three small products; on a busy machine, waking BLAS's threads for each cost
    twenty times the products themselves (0.4 ms against 10 ms per move, measured), and
    tournaments already run a process per core.
    """
    if not _ONE_THREAD:
        _ONE_THREAD.append(True)
        try:
            from threadpoolctl import threadpool_limits
        except ModuleNotFoundError:  # only slower: the bot itself needs nothing but NumPy
            return
        threadpool_limits(limits=1, user_api="blas")


def logits(
    params: Mapping[str, npt.NDArray[np.float32]],
    observations: npt.NDArray[Any],
    masks: npt.NDArray[Any],
) -> npt.NDArray[np.float32]:
    """Masked logits of a batch (NumPy; the trainer has the same function in JAX)."""
    x = observations.astype(np.float32) * INPUT_SCALE
    k = 0
    while f"w{k}" in params:
        x = np.tanh(x @ params[f"w{k}"] + params[f"b{k}"])
        k += 1
    out = x @ params["pi_w"] + params["pi_b"]
    return np.where(masks.astype(bool), out, np.float32(MASKED)).astype(np.float32)


class PolicyBot:
    """``ppo:PATH``: plays a trained policy from the player's view.

    It sees what every bot sees: the player's view, encoded by the environments' encoder, and
    the legal ids, which become the mask. It plays the most likely legal action (so a game does
    not depend on its generator), or with ``sample`` draws one with the policy's probabilities
    (the opponent of self-play). ``params`` may be replaced between moves.
    """

    reads_log = False  # the encoded view holds no log

    def __init__(
        self, params: Mapping[str, npt.NDArray[np.float32]], name: str, sample: bool = False
    ) -> None:
        one_blas_thread()
        self.params = params
        self.name = name
        self.sample = sample

    def choose(self, view: PlayerView, legal: Sequence[int], rng: random.Random) -> int:
        options = list(legal)
        mask = np.zeros((1, NUM_ACTIONS), dtype=np.int8)
        mask[0, options] = 1
        scores = logits(self.params, encode(view)[None, :], mask)[0]
        if not self.sample:
            return int(np.argmax(scores))
        chosen = scores[options].astype(np.float64)
        weights = np.exp(chosen - chosen.max())
        return rng.choices(options, weights=weights.tolist())[0]


#: Loaded checkpoints by (path, size, modification time): tournaments build a bot per seat of
#: every game, and a file rewritten during training is read again.
_LOADED: dict[tuple[str, int, int], Checkpoint] = {}


def make_policy_bot(arg: str) -> PolicyBot:
    """The factory of ``make_bot("ppo:PATH")``."""
    path = arg.strip()
    if not path:
        raise ValueError("bot 'ppo' needs a checkpoint: write ppo:path/to/checkpoint.npz")
    try:
        stat = os.stat(path)
    except OSError as exc:
        raise ValueError(
            f"bot 'ppo:{path}': cannot read the checkpoint: {exc.strerror or exc}"
        ) from None
    key = (os.path.abspath(path), stat.st_size, stat.st_mtime_ns)
    checkpoint = _LOADED.get(key)
    if checkpoint is None:
        try:
            checkpoint = load_checkpoint(path)
        except CheckpointError as exc:
            raise ValueError(f"bot 'ppo:{path}': {exc}") from None
        if len(_LOADED) >= 8:  # bounded: a long training run writes many files
            _LOADED.clear()
        _LOADED[key] = checkpoint
    return PolicyBot(checkpoint.params, f"ppo:{path}")
