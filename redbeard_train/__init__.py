"""PPO self-play training for Rödskägg: :func:`train` a :class:`Config` (or
``redbeard-train`` / ``python train.py`` on the command line)."""

from .config import Config, ConfigError, check_config, load_config
from .loop import train
from .cli import main, parse_args

__all__ = ["Config", "ConfigError", "check_config", "load_config", "train", "main", "parse_args"]
