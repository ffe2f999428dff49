# lib.sh is what the evaluation scripts (eval-all.sh, ablate-all.sh,
# tune-all.sh) share; they source it from the repository's root.

# setup_work sets work to the work folder ($EVAL_DIR, reused, or a fresh
# one) and builds analyze and faultsim in it.
setup_work() {
	work="${EVAL_DIR:-$(mktemp -d /tmp/faultline-eval.XXXXXX)}"
	mkdir -p "$work"
	go build -o "$work/analyze" ./cmd/analyze
	go build -o "$work/faultsim" ./cmd/faultsim
}

# add_real_sets appends to the array sets the real data sets found in
# ../shared/datasets, and says which are absent.
add_real_sets() {
	local set
	for set in nezha-tt nezha-ob; do
		if [[ -d ../shared/datasets/$set ]]; then
			sets+=("../shared/datasets/$set")
		else
			echo "== $set: ../shared/datasets/$set is absent, skipped"
		fi
	done
}

# sim_set KIND SEED BASELINE prints the folder of the simulator's fault
# variants (KIND sim: 39 cases, topologies shop, jobqueue, edge) or of the
# four seed systems (KIND seed: 24 cases) for that seed and baseline,
# generating it in the work folder when it is not there yet.
sim_set() {
	local d="$work/$1-$2-b$3"
	if [[ ! -d $d ]]; then
		case $1 in
		sim) "$work/faultsim" -out "$d" -cases 39 -seed "$2" -topology shop,jobqueue,edge -baseline "$3" >/dev/null ;;
		seed) "$work/faultsim" -out "$d" -cases 24 -seed "$2" -topology routing,jobclaim,triage,payment -baseline "$3" >/dev/null ;;
		esac
	fi
	echo "$d"
}
