"""Small trained policy networks, run with numpy alone (PACKAGE.md, Yardsticks).

    bot = anqi.network.NetworkBot()                 # the network shipped for traditional-2x4
    anqi.play([bot, anqi.RandomBot(1)], games=100, variant="traditional-2x4")

A network file is a numpy `.npz` archive (read with `allow_pickle=False`: nothing in it runs)
holding a multilayer perceptron from an observation to the logits of the action ids:

- `W0`, `b0`, `W1`, `b1`, ...: each layer's weights (in × out, float32) and biases (out);
- `activation`: the hidden layers' function, `"tanh"` or `"relu"` (the last layer has none);
- `variant`: the variant's name, `tensor_version`: the layout of the observations it reads
  (`anqi.env.TENSOR_VERSION`), `planes`: their names;
- `about`: how it was trained (free text: the command, the budget, the result measured).

The input is `Game.observation_tensor(player)` of the player to move, flattened (planes × cells),
the output one logit per action id; the bot plays the legal action of the highest logit (or
samples from their softmax with `temperature`). A file is untrusted input: its shapes must
chain from the observation's size to the number of action ids, and its variant and layout must
be the game's, or it is refused with the reason.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from .bots import Bot

#: The network shipped with the package, trained on traditional-2x4 (`about` in it says how).
SHIPPED = "network-traditional-2x4.npz"

#: The most parameters a network file may hold (a few MB of float32).
MAX_PARAMETERS = 4_000_000


class Network:
    """A policy network read from a file (see the module documentation)."""

    def __init__(self, path: str | Path | None = None) -> None:
        import numpy as np

        source = Path(path) if path is not None else resources.files("anqi") / "data" / SHIPPED
        with resources.as_file(source) as file:
            with np.load(file, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        self.path = str(source)
        layers = []
        total = 0
        while f"W{len(layers)}" in arrays:
            n = len(layers)
            w = arrays[f"W{n}"].astype(np.float32)
            b = arrays.get(f"b{n}")
            if w.ndim != 2 or b is None or b.shape != (w.shape[1],):
                raise ValueError(f"{self.path}: layer {n}: W{n} must be in × out and b{n} out")
            if layers and layers[-1][0].shape[1] != w.shape[0]:
                raise ValueError(f"{self.path}: layer {n} takes {w.shape[0]} inputs, the layer "
                                 f"before gives {layers[-1][0].shape[1]}")
            total += w.size + b.size
            if total > MAX_PARAMETERS:
                raise ValueError(f"{self.path}: more than {MAX_PARAMETERS} parameters")
            layers.append((w, b.astype(np.float32)))
        if not layers:
            raise ValueError(f"{self.path}: no layer (W0, b0) in the file")
        activation = str(arrays.get("activation", "tanh"))
        if activation not in ("tanh", "relu"):
            raise ValueError(f"{self.path}: activation {activation!r}: tanh or relu")
        self.layers = layers
        self.activation = activation
        self.variant = str(arrays["variant"]) if "variant" in arrays else None
        self.tensor_version = int(arrays["tensor_version"]) if "tensor_version" in arrays else None
        self.about = str(arrays.get("about", ""))
        self.inputs = layers[0][0].shape[0]
        self.outputs = layers[-1][0].shape[1]

    def check(self, variant: Any) -> None:
        """Refuses a variant (an `anqi.Variant`) this network was not made for (ValueError with
        the reason)."""
        from ._anqi import TENSOR_PLANES, TENSOR_VERSION

        if self.variant is not None and variant.name != self.variant:
            raise ValueError(f"{self.path} plays {self.variant}, not {variant.name}")
        if self.tensor_version is not None and self.tensor_version != TENSOR_VERSION:
            raise ValueError(f"{self.path} reads observations of layout {self.tensor_version}; "
                             f"this package's is {TENSOR_VERSION}")
        size = len(TENSOR_PLANES) * variant.size
        if (self.inputs, self.outputs) != (size, variant.num_distinct_actions):
            raise ValueError(f"{self.path} maps {self.inputs} inputs to {self.outputs} actions; "
                             f"{variant.name} has {size} and {variant.num_distinct_actions}")

    def logits(self, observation: Any) -> Any:
        """The logits of a batch of observations (..., planes, cells) or one."""
        import numpy as np

        x = np.asarray(observation, dtype=np.float32).reshape(*np.shape(observation)[:-2], -1)
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i + 1 < len(self.layers):
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0)
        return x


class NetworkBot(Bot):
    """A bot that plays a `Network`'s choice: the legal action of the highest logit, or, with
    `temperature > 0`, one drawn from the softmax of the legal logits / temperature (seeded).
    It reads `view.observation_tensor()`, the tensor of what its player knows, so it plays the
    same in process (`anqi.play`, `choose_id` on an `anqi.Game`) and on a server."""

    name = "network"

    def __init__(self, path: str | Path | None = None, temperature: float = 0.0,
                 seed: int | str | None = None) -> None:
        import random

        self.path, self.temperature, self.seed = path, temperature, seed
        self.network = Network(path)
        self.rng = random.Random(seed)
        self._variants: dict[str, Any] = {}

    def choose(self, view: Any) -> str:
        """The action for an `anqi.Observation` at its player's turn."""
        from ._anqi import Variant

        variant = self._variants.get(view.variant)
        if variant is None:
            variant = Variant.from_description(view.description) if view.description else \
                Variant(view.variant)
            self.network.check(variant)
            self._variants[view.variant] = variant
        legal = view.legal_actions()
        ids = [variant.action_id(a) for a in legal]
        return legal[self._pick(self.network.logits(view.observation_tensor()), ids)]

    def choose_id(self, game: Any) -> int:
        """The action id this bot plays in `game` (an `anqi.Game`), for its player to move."""
        self.network.check(game.variant_info)
        ids = game.legal_action_ids()
        return ids[self._pick(self.network.logits(game.observation_tensor(game.to_move)), ids)]

    def _pick(self, logits: Any, ids: list[int]) -> int:
        """The index in `ids` of the action played."""
        import numpy as np

        legal = logits[np.asarray(ids)]
        if self.temperature <= 0:
            return int(np.argmax(legal))
        z = (legal - legal.max()) / self.temperature
        weights = np.exp(z)
        return self.rng.choices(range(len(ids)), weights=list(weights / weights.sum()))[0]

    def __deepcopy__(self, memo: dict) -> "NetworkBot":
        copy = NetworkBot(self.path, self.temperature, self.seed)
        copy.name = self.name
        return copy
