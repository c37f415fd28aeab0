#!/usr/bin/env bash
# Screenshots of lazuli analysing in Debian's UCI GUIs (ChessX, Scid, PyChess) under Xvfb.
#
# Each GUI gets a fresh HOME in a temporary folder with its engine configuration written
# directly (lazuli registered, Threads 2, MultiPV 3, UCI_ShowWDL true), is started on a
# position, the analysis is started with xdotool (keys and clicks at fixed places of a
# 1600x1000 screen), and after --seconds the screen is captured, cropped and scaled into
# --out. The engine runs behind a wrapper that logs the UCI traffic ("> " GUI to engine,
# "< " engine to GUI) to <tmp>/uci-<gui>-<position>.log, kept with --keep.
# See docs/gui.md for what the screenshots show.
#
# Installs nothing. Needs (Debian): xvfb xdotool openbox imagemagick chessx scid pychess.
#
#   lab/tools/gui_screenshots.sh [--engine target/release/lazuli] [--out docs/gui]
#       [--seconds 25] [--gui chessx --gui scid --gui pychess] [--display 91] [--keep]
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
engine=$root/target/release/lazuli
out=$root/docs/gui
seconds=25
guis=()
display_num=91
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
    --engine) engine=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --gui) guis+=("$2"); shift 2 ;;
    --display) display_num=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h | --help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ ${#guis[@]} -gt 0 ] || guis=(chessx scid pychess)

# --- prerequisites -------------------------------------------------------------------------
missing=()
for tool in Xvfb xdotool openbox import convert md5sum python3; do
    command -v "$tool" > /dev/null || missing+=("$tool")
done
for gui in "${guis[@]}"; do
    case "$gui" in
    chessx) [ -x /usr/games/chessx ] || missing+=(/usr/games/chessx) ;;
    scid) [ -x /usr/games/scid ] || missing+=(/usr/games/scid) ;;
    pychess) [ -x /usr/games/pychess ] || missing+=(/usr/games/pychess) ;;
    *) echo "unknown GUI: $gui (chessx, scid, pychess)" >&2; exit 2 ;;
    esac
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "missing: ${missing[*]}" >&2
    echo "install: apt-get install xvfb xdotool openbox imagemagick chessx scid pychess" >&2
    exit 1
fi
[ -x "$engine" ] || { echo "no engine at $engine (cargo build --release)" >&2; exit 1; }
engine=$(realpath "$engine")
mkdir -p "$out"
out=$(realpath "$out")
if [ -e "/tmp/.X11-unix/X$display_num" ]; then
    echo "display :$display_num is in use; pick another with --display" >&2
    exit 1
fi

# --- scratch folder, Xvfb, window manager, clean-up ------------------------------------------
tmp=$(mktemp -d /tmp/lazuli-gui.XXXXXX)
pids=()
gui_pid=
stop_engines() {
    local f p
    for f in "$tmp"/*.log.pids; do
        [ -e "$f" ] || continue
        while read -r p; do kill "$p" 2> /dev/null || true; done < "$f"
        rm -f "$f"
    done
}
stop_gui() {
    if [ -n "$gui_pid" ]; then
        kill "$gui_pid" 2> /dev/null || true
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$gui_pid" 2> /dev/null || break; sleep 0.5; done
        kill -9 "$gui_pid" 2> /dev/null || true
        wait "$gui_pid" 2> /dev/null || true
        gui_pid=
    fi
    stop_engines
}
cleanup() {
    stop_gui
    local p
    for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2> /dev/null || true; done
    if [ "$keep" = 1 ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export DISPLAY=:$display_num
Xvfb "$DISPLAY" -screen 0 1600x1000x24 -nolisten tcp > "$tmp/xvfb.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do xdotool getdisplaygeometry > /dev/null 2>&1 && break; sleep 0.2; done
HOME=$tmp openbox > "$tmp/openbox.log" 2>&1 &
pids+=($!)
sleep 1

# The engine wrapper: logs both directions, records the engine's pid for the clean-up.
cat > "$tmp/lazuli-uci.sh" << EOF
#!/bin/bash
log=\${LAZULI_UCI_LOG:-$tmp/uci.log}
while IFS= read -r l; do printf '%s\n' "\$l"; printf '> %s\n' "\$l" >> "\$log"; done \\
  | sh -c 'echo \$\$ >> "\$0.pids"; exec "\$1"' "\$log" "$engine" \\
  | while IFS= read -r l; do printf '%s\n' "\$l"; printf '< %s\n' "\$l" >> "\$log"; done
EOF
chmod +x "$tmp/lazuli-uci.sh"
wrapper=$tmp/lazuli-uci.sh

# The two positions, both from benches/positions.epd: a quiet middlegame with White to move,
# and one where Black mates in 5 (lazuli finds it at depth 6) beside lines with normal scores.
declare -A fens=(
    [middlegame]="r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16"
    [mate]="6k1/3b3r/1p1p4/p1n2p2/1PPNpP1q/P3Q1p1/1R1RB1P1/5K2 b - - 0 1"
)
for pos in middlegame mate; do
    cat > "$tmp/$pos.pgn" << EOF
[Event "lazuli GUI check: $pos"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "?"]
[Black "?"]
[Result "*"]
[SetUp "1"]
[FEN "${fens[$pos]}"]

*
EOF
done

# shot NAME CROP [SCALE]: the screen, cropped (WxH+X+Y) and scaled, as $out/NAME.png.
shot() {
    import -window root "$tmp/screen.png"
    convert "$tmp/screen.png" -crop "$2" +repage -resize "${3:-100%}" -strip \
        -colors 256 "$out/$1.png"
    echo "wrote $out/$1.png ($(du -k "$out/$1.png" | cut -f1) KB)"
}
# window NAME-REGEX: the id of the first visible window whose name matches, waiting for it.
window() {
    local w
    for _ in $(seq 60); do
        w=$(xdotool search --onlyvisible --name "$1" 2> /dev/null | head -1 || true)
        [ -n "$w" ] && { echo "$w"; return; }
        sleep 0.5
    done
    echo "no window named $1" >&2
    return 1
}
click() { xdotool mousemove "$1" "$2" click 1; sleep "${3:-1}"; }
start_gui() { # HOME LOG COMMAND...
    local home=$1 log=$2
    shift 2
    HOME=$home LAZULI_UCI_LOG=$log "$@" > "$log.gui-stderr" 2>&1 &
    gui_pid=$!
}

# --- ChessX ----------------------------------------------------------------------------------
# Engines live in ~/.config/chessx/chessx.ini, [Engines] N\Name, N\Command, N\Protocol, and
# N\OptionValues: a QDataStream of QMap<QString,QVariant>, written here byte by byte.
chessx_option_values() {
    python3 - "$@" << 'EOF'
import struct, sys
def qstr(s):
    b = s.encode("utf-16-be")
    return struct.pack(">I", len(b)) + b
pairs = [a.split("=", 1) for a in sys.argv[1:]]
data = struct.pack(">I", len(pairs))
for k, v in pairs:
    data += qstr(k) + struct.pack(">IB", 10, 0) + qstr(v)  # QVariant: QString, not null
# QSettings' @ByteArray escapes; every byte that is not a non-hex letter as \xHH.
text = "".join(chr(c) if chr(c).isalpha() and chr(c) not in "abcdefABCDEF" else "\\x%02x" % c
               for c in data)
print("@ByteArray(" + text + ")")
EOF
}
run_chessx() { # POSITION
    local pos=$1 home=$tmp/home-chessx-$1 log=$tmp/uci-chessx-$1.log
    mkdir -p "$home/.config/chessx"
    local ms=$((seconds * 1000 + 5000))
    cat > "$home/.config/chessx/chessx.ini" << EOF
[%General]
BuiltinDbInstalled=true
onlineTablebases=false
onlineVersionCheck=false

[Board]
AutoPlayerInterval=$ms

[Analysis]
Engine=lazuli

[Engines]
0\\Name=lazuli
0\\Command=$wrapper
0\\Directory=$tmp
0\\Protocol=UCI
0\\OptionValues=$(chessx_option_values Threads=2 MultiPV=3 UCI_ShowWDL=true)
EOF
    start_gui "$home" "$log" /usr/games/chessx "$tmp/$pos.pgn"
    local w
    w=$(window ' - ChessX$')
    sleep 3
    xdotool windowmove "$w" 0 0 windowsize "$w" 1600 980
    sleep 1
    click 101 10            # View
    click 142 440 2         # Analysis 1: opens as a small floating dock at the top left
    click 129 10 2          # its float button: a window of its own
    local a
    a=$(window '^Analysis 1$')
    local ax=1042 ay=60     # where the analysis window goes: over the database panels
    xdotool windowsize "$a" 558 560 windowmove "$a" $ax $ay
    sleep 2
    click $((ax + 60)) $((ay + 36)) 0.5   # Lines: 3
    xdotool key ctrl+a type 3
    xdotool key Tab
    sleep 0.5
    click $((ax + 513)) $((ay + 35)) "$seconds"  # Analyze
    shot "chessx-$pos" 1300x830+300+50 70%
    stop_gui
}

# --- Scid ------------------------------------------------------------------------------------
# Engines live in ~/.scid4.7/config/engines.dat (Tcl: engine { Name ... UCIoptions {...} });
# options.dat is Tcl too: no tip of the day, engine window 1 opens lazuli.
run_scid() { # POSITION [options]
    local pos=$1 home=$tmp/home-scid-$1 log=$tmp/uci-scid-$1.log
    mkdir -p "$home/.scid4.7/config"
    cat > "$home/.scid4.7/config/engines.dat" << EOF
engine {
  Name lazuli
  Cmd  $wrapper
  Args {}
  Dir  $tmp
  Elo  0
  Time 0
  URL  {}
  UCI 1
  UCIoptions {{Threads 2} {MultiPV 3} {UCI_ShowWDL true}}
}
EOF
    # The layout (Scid's default with the Engine window where the classic Analysis window is).
    cat > "$home/.scid4.7/config/options.dat" << 'EOF'
set startup(tip) 0
set ::enginewin_lastengine(1) lazuli
set ::docking::layout_list(auto) {{MainWindowGeometry 1600x980+0+0} {{.pw vertical {}} {TPanedwindow {{.pw.pw0 horizontal 640} {TNotebook .nb .fdockmain} {TPanedwindow {{.pw.pw0.pw1 vertical 800} {TNotebook .tb2 .fdockengineWin1} {TNotebook .tb3 {.fdockpgnWin .fdockglistWin1}}}}}}}}
EOF
    start_gui "$home" "$log" /usr/games/scid "$tmp/$pos.pgn"
    window '^Scid - ' > /dev/null
    sleep 6
    if [ "${2:-}" = options ]; then
        shot scid-options 953x735+647+55 75%
    fi
    click 662 835 "$seconds"  # start (the triangle under the options)
    shot "scid-$pos" 1600x740+0+40 70%
    stop_gui
}

# --- PyChess ---------------------------------------------------------------------------------
# Engines live in ~/.config/pychess/engines.json (options with "value" are sent), settings in
# ~/.config/pychess/config: the hint analyzer is lazuli (by the md5 of its command), hint mode
# on, infinite analysis (otherwise "go movetime 3000").
run_pychess() { # POSITION
    local pos=$1 home=$tmp/home-pychess-$1 log=$tmp/uci-pychess-$1.log
    mkdir -p "$home/.config/pychess"
    local md5
    md5=$(md5sum "$wrapper" | cut -d' ' -f1)
    printf 'uci\nquit\n' | "$engine" > "$tmp/uci-options.txt"
    python3 - "$wrapper" "$tmp" "$md5" "$tmp/uci-options.txt" \
        > "$home/.config/pychess/engines.json" << 'EOF'
import json, sys
# The options as PyChess's discovery stores them (from lazuli's own "uci" answer), with the
# values to send: those that differ from the default are sent at every start.
wrapper, folder, md5, uci_answer = sys.argv[1:]
values = {"Threads": 2, "MultiPV": 3, "UCI_ShowWDL": True}
options = []
for line in open(uci_answer):
    words = line.split()
    if words[:2] != ["option", "name"]:
        continue
    t = words.index("type")
    o = {"name": " ".join(words[2:t])}
    kind, fields, key = words[t + 1], {}, None
    for w in words[t + 2:]:
        if w in ("default", "min", "max", "var"):
            key = w
            if w == "var":
                fields.setdefault("var", []).append("")
            else:
                fields[w] = ""
        elif key == "var":
            fields["var"][-1] = (fields["var"][-1] + " " + w).strip()
        elif key:
            fields[key] = (fields[key] + " " + w).strip()
    if kind == "spin":
        o.update(type="spin", default=int(fields["default"]), min=int(fields["min"]),
                 max=int(fields["max"]))
    elif kind == "check":
        o.update(type="check", default=fields["default"] == "true")
    elif kind == "combo":
        o.update(type="combo", default=fields["default"], choices=fields["var"])
    elif kind == "string":
        o.update(type="text", default=fields.get("default", ""))
    else:
        o.update(type=kind)
    if o["name"] in values:
        o["value"] = values[o["name"]]
    options.append(o)
print(json.dumps([{"name": "lazuli", "protocol": "uci", "command": wrapper,
                   "workingDirectory": folder, "md5": md5, "recheck": False,
                   "options": options}], indent=1))
EOF
    cat > "$home/.config/pychess/config" << EOF
[General]
show_tip_at_startup = False
dont_show_externals_at_startup = True
analyzer_check = True
inv_analyzer_check = False
hint_mode = True
infinite_analysis = True
ana_combobox = $md5
inv_ana_combobox = $md5
EOF
    start_gui "$home" "$log" /usr/games/pychess "$tmp/$pos.pgn"
    local w
    sleep 8                 # the splash screen first, then the main window
    w=$(window '^Welcome - PyChess$')
    sleep 2
    xdotool windowmove "$w" 0 0 windowsize "$w" 1600 980
    sleep 2
    xdotool mousemove 500 168 click --repeat 2 --delay 80 1   # the game, from the database
    sleep 3
    click 1029 720 3        # Enter Game: Start Game (human against human)
    click 54 652 "$seconds"  # the Hints panel
    shot "pychess-$pos" 1600x690+0+120 80%
    stop_gui
}

for gui in "${guis[@]}"; do
    for pos in middlegame mate; do
        echo "== $gui, $pos (${seconds}s)"
        if [ "$gui" = scid ] && [ "$pos" = middlegame ]; then
            run_scid "$pos" options
        else
            "run_$gui" "$pos"
        fi
    done
done
