"""Audit every zoo entry and print the detection and false-alarm rates.

    python examples/zoo/run_zoo.py
"""

from pathlib import Path

from dps_verify.audit.zoo import format_zoo, run_zoo

if __name__ == "__main__":
    print(format_zoo(run_zoo(Path(__file__).parent)))
