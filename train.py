"""PPO self-play trainer for every registered game (the command line of :mod:`redbeard_train`).

    python train.py --config classic_4p                 # configs/classic_4p.yaml
    python train.py --config classic_4p --total-steps 2e6 --num-envs 512
    python train.py --resume runs/classic_4p__1__20261129-140000
    python train.py --help                              # every field, its type and default
    tensorboard --logdir runs

Installed, the same command is ``redbeard-train``. How training works, its outputs and
its checkpoints: redbeard_train/loop.py.
"""

from redbeard_train.cli import main

if __name__ == "__main__":
    main()
