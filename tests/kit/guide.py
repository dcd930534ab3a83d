"""Reading docs/build-your-own-runtime.md into what the kit tests run and check.

The guide's code blocks follow a few conventions so that a test can run or check every one:

  ```sh       run by a flow test (run_guide.py), block by block, in one shell session whose
              cwd and exported variables carry over. A comment line right after a command is
              its expected output: each comment line is a sequence of pieces separated by
              "...", and the pieces must appear in the command's output in order. A block
              whose first line is "# terminal N" is a server the reader starts in another
              terminal: it runs in the background from $HOME with the initial environment, and
              its comment lines are the output that says it is ready. Starting a block in a
              terminal that still runs one stops that one first with Ctrl-C (SIGINT).
  ```cpp, ```c, ```cmake
              must appear verbatim in a source file the build compiles (or the generated
              projects the flow tests build); check_guide.py checks that.

No other kind of block is allowed. Each "## " section belongs to the flows listed in FLOWS.
"""
import re

# The flow tests (tests/kit/CMakeLists.txt) and the guide sections each one runs, in order.
FLOWS = {
    "custom": ["Install the kit", "Quick start: a stateless runtime"],
    "wasm": ["Install the kit", "A Wasm engine", "Running the program corpus and the image checks",
             "A built-in language as a deployable runtime"],
    "wasmify": ["Install the kit", "The wasmify ABI"],
}

CHECKED_LANGUAGES = ("cpp", "c", "cmake")
TERMINAL = re.compile(r"^# terminal (\d+)$")


class GuideError(Exception):
    pass


class Block:
    def __init__(self, section, language, lines, line_number):
        self.section = section
        self.language = language
        self.lines = lines
        self.line_number = line_number

    @property
    def text(self):
        return "\n".join(self.lines) + "\n"


class Command:
    """One shell command (continuation lines and here-documents included) and the output it
    must print."""

    def __init__(self, text, expected):
        self.text = text
        self.expected = expected  # lines; each a "..."-separated sequence of pieces


class Server:
    def __init__(self, terminal, text, expected):
        self.terminal = terminal
        self.text = text
        self.expected = expected


def read_blocks(path):
    blocks, section = [], None
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            section = line[3:].strip()
        elif line.startswith("```"):
            language = line[3:].strip()
            start = i + 1
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                i += 1
            if i == len(lines):
                raise GuideError(f"{path}:{start}: unterminated code block")
            blocks.append(Block(section, language, lines[start:i], start))
        i += 1
    return blocks


def _heredoc_end(line):
    m = re.search(r"<<-?\s*'?([A-Za-z_]+)'?", line)
    return m.group(1) if m else None


def parse_sh(block):
    """A list of Command, or one Server for a "# terminal N" block."""
    lines = list(block.lines)
    where = f"line {block.line_number}"
    if lines and TERMINAL.match(lines[0]):
        terminal = int(TERMINAL.match(lines[0]).group(1))
        body = [l for l in lines[1:] if not l.startswith("#")]
        expected = [l[1:].strip() for l in lines[1:] if l.startswith("#")]
        if not body:
            raise GuideError(f"{where}: a terminal block needs a command")
        if not expected:
            raise GuideError(f"{where}: a terminal block needs the output that says it is ready")
        return [Server(terminal, "\n".join(body), expected)]
    commands, i = [], 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if line.startswith("#"):
            raise GuideError(f"{where}: a comment must follow a command (it is its output)")
        text = [line]
        end = _heredoc_end(line)
        while (text[-1].endswith("\\") or end) and i + 1 < len(lines):
            i += 1
            text.append(lines[i])
            if end and lines[i] == end:
                end = None
                if not text[-1].endswith("\\"):
                    break
        if end:
            raise GuideError(f"{where}: unterminated here-document")
        i += 1
        expected = []
        while i < len(lines) and lines[i].startswith("#"):
            expected.append(lines[i][1:].strip())
            i += 1
        commands.append(Command("\n".join(text), expected))
    if not commands:
        raise GuideError(f"{where}: empty sh block")
    return commands


def matches(expected_lines, output):
    """Whether every expected line's pieces appear in `output` in order; returns the first
    missing piece or None."""
    pos = 0
    for line in expected_lines:
        for piece in line.split("..."):
            piece = piece.strip()
            if not piece:
                continue
            found = output.find(piece, pos)
            if found < 0:
                return piece
            pos = found + len(piece)
    return None
