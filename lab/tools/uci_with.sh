#!/usr/bin/env bash
# Runs a UCI engine with options held at given values, for match runners that cannot set them
# (python-chess manages MultiPV: it refuses to set it and sends the option's default before
# every `go` of a game):
#     lab/tools/uci_with.sh ENGINE NAME=VALUE...
# e.g. lab/tools/uci_with.sh target/release/lazuli MultiPV=4 (option names without spaces). Each
# option is set first, and every later `setoption` of it is rewritten to the value given. The
# runner's lines pass through `sed -u`, which is ended when the engine exits, so that `quit`
# ends everything the runner started.
engine=$1
shift
script=()
for option in "$@"; do
    name=${option%%=*}
    script+=(-e "s/^setoption name $name value .*/setoption name $name value ${option#*=}/")
done
fifo=$(mktemp -u)
mkfifo "$fifo"
exec 3<&0
{
    for option in "$@"; do
        echo "setoption name ${option%%=*} value ${option#*=}"
    done
    exec sed -u "${script[@]}" <&3
} >"$fifo" &
feeder=$!
exec 3<&-
"$engine" <"$fifo"
status=$?
kill "$feeder" 2>/dev/null
rm -f "$fifo"
exit $status
