"""anqi's environment in Gymnasium's registry: "anqi/Anqi-v0" (PACKAGE.md, Environments).

`import anqi.env` (and so `import anqi`) registers it when Gymnasium is installed; without
importing anything, `gymnasium.make("anqi.env:anqi/Anqi-v0")` imports this package first
(Gymnasium's "module:id" form). Then

    gymnasium.make("anqi/Anqi-v0", variant="traditional", opponent="greedy", seat=1)
    gymnasium.make_vec("anqi/Anqi-v0", num_envs=64, variant="traditional")

give `anqi.env.gymnasium_env(...)` and `anqi.env.vector_env(64, ...)`: keyword arguments go to
them as they are. `make_vec` uses the native vector environment unless asked for
`vectorization_mode="sync"` or `"async"` (copies of the single environment: the only way to
play the "greedy" and "search" opponents in a batch).
"""

from __future__ import annotations

#: The environment's id in Gymnasium's registry.
ENV_ID = "anqi/Anqi-v0"


def register() -> None:
    """Registers ENV_ID, once (importing the package again registers nothing new)."""
    import gymnasium

    if ENV_ID in gymnasium.registry:
        return
    gymnasium.register(
        id=ENV_ID,
        entry_point="anqi.env.gymnasium_single:AnqiGym",
        vector_entry_point="anqi.env.vector:AnqiVectorEnv",
        # Every game ends by its variant's own rules (a no-progress or repetition rule, or a
        # ply cap), so no TimeLimit wrapper: `max_plies=N` truncates where wanted, counting
        # plies rather than the agent's steps.
        max_episode_steps=None,
        # The environment passes Gymnasium's check_env (tests/test_env.py), and the passive
        # checker make() wraps it in costs only its first reset, step and render: kept, so
        # that an environment made with other arguments is checked too.
        disable_env_checker=False,
    )
