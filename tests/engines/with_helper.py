"""Starts a helper the way a daemon would, in a new session (so it escapes the engine's process
group), writes the helper's pid to FILE, then becomes the engine (exec):

    with_helper.py FILE PROGRAM ARGS...

The tests then check the helper is gone when the engine's game, bridge or runner is.
"""

import os
import subprocess
import sys


def main() -> None:
    pid_file, command = sys.argv[1], sys.argv[2:]
    helper = subprocess.Popen(["sleep", "300"], start_new_session=True)
    with open(pid_file + ".tmp", "w") as f:
        f.write(str(helper.pid))
    os.rename(pid_file + ".tmp", pid_file)
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
