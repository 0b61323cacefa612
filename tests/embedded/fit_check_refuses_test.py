"""A model that does not fit a board is refused: the Bergamot translation image (a 73 MB
program) against a Cortex-M55 with 2 MB flash and 512 KB SRAM. fit_check.py must exit
1, write nothing where the image would go, and say which parts are how large and what
to change.

    fit_check_refuses_test.py <fit_check> <image.elf>
"""

import os
import subprocess
import sys
import tempfile


def main() -> int:
    fit_check, elf = sys.argv[1:3]
    with tempfile.TemporaryDirectory(dir=os.environ.get("TEST_TMPDIR")) as scratch:
        copy = os.path.join(scratch, "image.elf")
        result = subprocess.run(
            [fit_check, f"--elf={elf}", "--board=m55_2mb_flash_512kb_sram", "--image=translate_cortex_m55",
             f"--table={os.path.join(scratch, 'fit.txt')}", f"--copy_to={copy}"],
            capture_output=True, text=True)
        print(result.stderr)
        failures = []
        if result.returncode != 1:
            failures.append(f"exit status {result.returncode}, expected 1")
        if os.path.exists(copy):
            failures.append("the image was copied although it does not fit")
        for expected in [
            "translate_cortex_m55 does not fit m55_2mb_flash_512kb_sram",
            "the program (.pte)",
            "flash: ",
            "DOES NOT FIT",
            "int8 weights",
            'board = "mps3_an547"',
        ]:
            if expected not in result.stderr:
                failures.append(f"the message lacks {expected!r}")
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
