#!/usr/bin/env bash
# Simulate a Binder (repo2docker) build without Docker:
#   a clean clone of HEAD, a fresh venv, `pip install -r binder/requirements.txt` from the clone's root
#   (as repo2docker does), then JupyterLab started on the clone and the start notebook fetched by URL
#   (the Binder badge opens urlpath=lab/tree/notebooks/00_start_here.ipynb).
# Usage: scripts/binder_check.sh [REPO]   (default: this repository)
set -euo pipefail
repo=$(cd "${1:-$(dirname "$0")/..}" && pwd)
work=$(mktemp -d /tmp/stmviz-binder.XXXXXX)
trap 'kill "${lab_pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
echo "== clean clone of $repo into $work/repo"
git clone -q "$repo" "$work/repo"
cd "$work/repo"
runtime=$(cat binder/runtime.txt)
echo "== binder/runtime.txt asks for $runtime; using $(python3 --version)"
python3 -m venv "$work/venv"
. "$work/venv/bin/activate"
echo "== pip install -r binder/requirements.txt"
pip install -q -r binder/requirements.txt
if [ -x binder/postBuild ]; then echo "== binder/postBuild"; binder/postBuild; fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export JUPYTER_CONFIG_DIR="$work/cfg" JUPYTER_DATA_DIR="$work/data" JUPYTER_RUNTIME_DIR="$work/rt" IPYTHONDIR="$work/ipy"
echo "== starting JupyterLab on 127.0.0.1:$port"
jupyter lab --allow-root --no-browser --ip 127.0.0.1 --port "$port" --ServerApp.token='' --ServerApp.password='' \
  --ServerApp.root_dir="$work/repo" >"$work/lab.log" 2>&1 &
lab_pid=$!
for _ in $(seq 60); do
  curl -fs "http://127.0.0.1:$port/api/status" >/dev/null 2>&1 && break
  sleep 1
done
fail=0
check() {
  local url=$1 what=$2
  code=$(curl -s -o "$work/body" -w '%{http_code}' "$url")
  if [ "$code" = 200 ] && grep -q "$what" "$work/body"; then echo "ok   $url"; else echo "FAIL $url ($code)"; fail=1; fi
}
check "http://127.0.0.1:$port/lab/tree/notebooks/00_start_here.ipynb" "JupyterLab"
check "http://127.0.0.1:$port/api/contents/notebooks/00_start_here.ipynb" '"type": "notebook"'
python - <<'PY' || fail=1
import stmviz, stmviz.viz, stmviz.widgets  # the kernel side of the notebooks imports cleanly
print("ok   import stmviz, stmviz.viz, stmviz.widgets in the Binder environment")
PY
[ "$fail" = 0 ] && echo "== Binder simulation passed" || { echo "== Binder simulation FAILED"; tail -20 "$work/lab.log"; exit 1; }
