"""The attnkit command line: parses arguments, calls the core, prints, picks the exit code."""
from __future__ import annotations

import argparse
import sys

from autograder.errors import AttnkitError


def _cmd_release(args: argparse.Namespace) -> int:
    from autograder.release import release

    files = release()
    print(f"wrote {len(files)} files of the student release")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="attnkit", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("release", help="generate assignments/ from solutions/")
    p.set_defaults(func=_cmd_release)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except AttnkitError as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
