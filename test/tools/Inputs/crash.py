"""Makes a tool crash on purpose and prints what it wrote to stderr.

Starts the tool reading its input from a pipe that stays open, waits until it
blocks on that read (its crash handlers are installed by then), sends it
SIGSEGV, and prints its stderr. Used to check the crash report's wording
without a real bug to trigger it.
"""
import os
import signal
import subprocess
import sys
import time

proc = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE,
                        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
deadline = time.time() + 60
while time.time() < deadline:
    with open(f"/proc/{proc.pid}/stat") as f:
        state = f.read().rsplit(")", 1)[1].split()[0]
    with open(f"/proc/{proc.pid}/wchan") as f:
        wchan = f.read()
    if state == "S" and "pipe" in wchan:
        break
    time.sleep(0.05)
proc.send_signal(signal.SIGSEGV)
_, err = proc.communicate()
sys.stdout.write(err.decode(errors="replace"))
print(f"exit: {proc.returncode}")
