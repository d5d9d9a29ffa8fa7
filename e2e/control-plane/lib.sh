# Shared by e2e/control-plane/build and e2e/node/build (sourced, not run): the Kubernetes pin,
# logging, the build lock, the Go environment and caches, wrapper modules, and building one
# binary to a temporary name that is checked, stamped and renamed into place.
#
# Before sourcing, set IOQOS_BUILD_NAME (the prefix of log lines, e.g. "control-plane").
# The sourcing script defines:
#   stamp_of NAME          what NAME is built from (the text of its stamp file)
#   check_binary PATH NAME runs a freshly built binary; dies if it does not work
#   all_current            whether the whole output is there (used after waiting for the lock)

# ---- the Kubernetes pin -------------------------------------------------------------------
# The control plane (kube-apiserver, kubectl) and the node (kubelet, kube-proxy, ...) are built
# at the same version, from the same wrapper module.
K8S_VERSION="${IOQOS_K8S_VERSION:-1.34.12}"

# ---- logging ------------------------------------------------------------------------------
START_SECONDS=$SECONDS
log() { printf '[%s %4ss] %s\n' "$IOQOS_BUILD_NAME" "$((SECONDS - START_SECONDS))" "$*" >&2; }
die() { printf '%s build: error: %s\n' "$IOQOS_BUILD_NAME" "$*" >&2; exit 1; }

# Checks the Kubernetes pin; sets K8S_MINOR, K8S_PATCH and STAGING_VERSION (v0.MINOR.PATCH,
# the version of the published staging modules k8s.io/api, k8s.io/client-go, ...).
check_k8s_version() {
  case "$K8S_VERSION" in
    v*) die "IOQOS_K8S_VERSION must not start with 'v' (got '$K8S_VERSION')" ;;
  esac
  [[ "$K8S_VERSION" =~ ^1\.([0-9]+)\.([0-9]+)$ ]] \
    || die "IOQOS_K8S_VERSION must look like 1.MINOR.PATCH (got '$K8S_VERSION')"
  K8S_MINOR="${BASH_REMATCH[1]}"
  K8S_PATCH="${BASH_REMATCH[2]}"
  STAGING_VERSION="v0.${K8S_MINOR}.${K8S_PATCH}"
}

# Sets ARCH (Go's name for this machine); $1 says why only Linux will do.
detect_arch() { # why-linux
  [[ "$(uname -s)" == Linux ]] || die "only Linux is supported ($1)"
  case "$(uname -m)" in
    x86_64 | amd64) ARCH=amd64 ;;
    aarch64 | arm64) ARCH=arm64 ;;
    *) die "unsupported machine architecture $(uname -m)" ;;
  esac
}

# ---- stamps -------------------------------------------------------------------------------
# A stamp next to each binary, .NAME.ioqos-stamp, records what it was built from.
is_current() { # dir name
  local bin="$1/$2" stamp="$1/.$2.ioqos-stamp"
  [[ -f "$bin" && -x "$bin" && -f "$stamp" ]] && [[ "$(cat "$stamp")" == "$(stamp_of "$2")" ]]
}

# ---- one build at a time per directory ----------------------------------------------------
# Takes $1/.ioqos-build.lock (waiting for another run if need be). If that run finished the
# job (all_current), prints $2 and exits. Otherwise drops temporary directories that a run
# killed outright left in $1: holding the lock, no other run is using one.
take_build_lock() { # dir result
  command -v flock >/dev/null 2>&1 || return 0
  exec 9>"$1/.ioqos-build.lock"
  if ! flock -n 9; then
    log "another build holds $1/.ioqos-build.lock; waiting"
    flock 9
  fi
  if all_current; then
    log "up to date (built by the other run): $2"
    echo "$2"
    exit 0
  fi
  rm -rf "$1"/.ioqos-tmp.*
}

# Creates TMP_DIR in $1 (the same file system as the output, so mv is a rename), removed on
# exit.
make_tmp_dir() { # dir
  TMP_DIR="$(mktemp -d "$1/.ioqos-tmp.XXXXXX")"
  trap 'rm -rf "$TMP_DIR"' EXIT
  trap 'log "interrupted"; exit 130' INT
  trap 'log "terminated"; exit 143' TERM
}

# ---- Go environment -----------------------------------------------------------------------
# Module and build caches and wrapper modules under $IOQOS_GO_CACHE (default
# ~/.cache/ioqos-go), shared by all builds. CGO_ENABLED=0 unless a build says otherwise.
setup_go() {
  command -v go >/dev/null 2>&1 || die "go is not on PATH (Go >= 1.26 is needed)"
  GO_CACHE_ROOT="${IOQOS_GO_CACHE:-$HOME/.cache/ioqos-go}"
  mkdir -p "$GO_CACHE_ROOT"
  GO_CACHE_ROOT="$(cd "$GO_CACHE_ROOT" && pwd -P)"
  export GOMODCACHE="$GO_CACHE_ROOT/mod"
  export GOCACHE="$GO_CACHE_ROOT/build"
  export GOPATH="$GO_CACHE_ROOT/gopath"
  export GOFLAGS="-mod=mod -buildvcs=false -trimpath"
  export GOTOOLCHAIN=local
  export GOWORK=off
  export GO111MODULE=on
  export CGO_ENABLED=0
  export GOOS=linux
  export GOARCH="$ARCH"
  JOBS="${IOQOS_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}"
  WORK_ROOT="$GO_CACHE_ROOT/work"
  mkdir -p "$WORK_ROOT" "$GOMODCACHE" "$GOCACHE" "$GOPATH"
  log "$(go version); caches under $GO_CACHE_ROOT; go build -p $JOBS"
}

# Downloads module@version into the module cache; prints the path of the file named by the
# JSON key $3 (GoMod, Info, Dir, ...). Runs from an empty directory, outside any module.
module_file() { # module version key
  local json path empty="$WORK_ROOT/.empty"
  mkdir -p "$empty"
  if ! json="$(cd "$empty" && go mod download -json "$1@$2" 2>&1)"; then
    die "cannot download $1@$2 from the Go module proxy ($(go env GOPROXY)):
$json"
  fi
  path="$(printf '%s\n' "$json" | sed -n "s/^[[:space:]]*\"$3\": \"\(.*\)\",\{0,1\}$/\1/p" | head -n1)"
  [[ -n "$path" && -e "$path" ]] || die "no $3 for $1@$2 in: $json"
  echo "$path"
}

# The go, toolchain-independent godebug lines of a go.mod, so that our wrapper module builds
# with the same language version and GODEBUG defaults as the project's own module.
go_directives() { # go.mod path
  awk '
    /^go[[:space:]]/ { print; next }
    /^godebug[[:space:]]*\(/ { inblock = 1; print; next }
    inblock { print; if ($0 ~ /^\)/) inblock = 0; next }
    /^godebug[[:space:]]/ { print; next }
  ' "$1"
}

# The go.mod of a wrapper module: module path $2, the go/godebug lines of the project's
# go.mod $3, one requirement $4 ("module vX.Y.Z") and the replace lines that follow, if any.
wrapper_template() { # generator module-path project-go.mod requirement [replace...]
  local text="// Generated by ioqos $1; do not edit.
module $2

$(go_directives "$3")

require $4"
  shift 4
  if [[ $# -gt 0 ]]; then
    text+="

replace ("
    local r
    for r in "$@"; do
      text+="
	$r"
    done
    text+="
)"
  fi
  printf '%s' "$text"
}

# (Re)writes go.mod of a wrapper module when its template changed; go build -mod=mod then
# fills in go.mod/go.sum once, and later runs reuse them.
prepare_module() { # dir template-text
  local dir="$1" template="$2"
  mkdir -p "$dir"
  if [[ ! -f "$dir/go.mod.template" || ! -f "$dir/go.mod" ]] \
    || [[ "$(cat "$dir/go.mod.template")" != "$template" ]]; then
    printf '%s\n' "$template" >"$dir/go.mod.template.new"
    printf '%s\n' "$template" >"$dir/go.mod"
    rm -f "$dir/go.sum"
    mv -f "$dir/go.mod.template.new" "$dir/go.mod.template"
  fi
}

# Prepares the wrapper module of k8s.io/kubernetes v$K8S_VERSION (one for the control plane
# and the node, $WORK_ROOT/kubernetes-v<version>); sets K8S_WORK and K8S_LDFLAGS (the version
# stamping of hack/lib/version.sh).
prepare_kubernetes_module() {
  log "resolving k8s.io/kubernetes v$K8S_VERSION ..."
  local gomod info build_date m staging replaces=()
  gomod="$(module_file k8s.io/kubernetes "v$K8S_VERSION" GoMod)"
  info="$(module_file k8s.io/kubernetes "v$K8S_VERSION" Info)"
  build_date="$(sed -n 's/.*"Time"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$info" | head -n1)"
  build_date="${build_date:-1970-01-01T00:00:00Z}"
  # k8s.io/kubernetes requires its staging modules at v0.0.0 and replaces them with
  # ./staging/src/...; outside that repo each must point at its published v0.MINOR.PATCH.
  mapfile -t staging < <(sed -n 's#^\(require\)\{0,1\}[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\)[[:space:]]\{1,\}v0\.0\.0[[:space:]]*$#\2#p' "$gomod" | sort -u)
  [[ ${#staging[@]} -gt 0 ]] || die "found no staging modules (k8s.io/... v0.0.0) in $gomod"
  for m in "${staging[@]}"; do
    replaces+=("$m => $m $STAGING_VERSION")
  done
  # The generator named in the template stays e2e/control-plane/build: both builds must write
  # the same go.mod, or each would reset the module the other filled in.
  K8S_WORK="$WORK_ROOT/kubernetes-v$K8S_VERSION"
  prepare_module "$K8S_WORK" "$(wrapper_template e2e/control-plane/build \
    ioqos.local/control-plane/kubernetes "$gomod" "k8s.io/kubernetes v$K8S_VERSION" "${replaces[@]}")"
  log "k8s.io/kubernetes v$K8S_VERSION: ${#staging[@]} staging modules replaced with $STAGING_VERSION"

  local pkg
  K8S_LDFLAGS="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    K8S_LDFLAGS+=" -X $pkg.gitVersion=v$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$K8S_MINOR"
    K8S_LDFLAGS+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$build_date"
  done
}

# ---- one binary ---------------------------------------------------------------------------
# Builds package $2 in wrapper module $1 to $3/$4 with ldflags $5 and any further go build
# flags (e.g. -tags); skipped when $3/$4 is current. The binary is built into $TMP_DIR, run
# (check_binary), renamed into place, and then stamped. CGO_ENABLED comes from the caller's
# environment (CGO_ENABLED=1 build_binary ... for one binary).
build_binary() { # module-dir package dest-dir name ldflags label [go-build-flag...]
  local dir="$1" pkg="$2" dest="$3" name="$4" ldflags="$5" label="$6" t0=$SECONDS
  shift 6
  if is_current "$dest" "$name"; then
    log "$name $label already built"
    return
  fi
  log "building $name $label ($pkg) ..."
  if ! (cd "$dir" && go build -p "$JOBS" "$@" -ldflags "$ldflags" -o "$TMP_DIR/$name" "$pkg"); then
    die "go build of $pkg failed (work module: $dir)"
  fi
  check_binary "$TMP_DIR/$name" "$name"
  mkdir -p "$dest"
  rm -f "$dest/.$name.ioqos-stamp"
  mv -f "$TMP_DIR/$name" "$dest/$name"
  stamp_of "$name" >"$TMP_DIR/.$name.ioqos-stamp"
  mv -f "$TMP_DIR/.$name.ioqos-stamp" "$dest/.$name.ioqos-stamp"
  log "built $name in $((SECONDS - t0))s"
}
