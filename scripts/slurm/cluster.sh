#!/usr/bin/env bash
# A single-node Slurm cluster on this host from Debian's packages, for the tests and for trying the
# job scripts beside this file. Run as root.
#   cluster.sh start   installs slurmctld, slurmd, slurm-client and munge when missing; writes a
#                      munge key and a slurm.conf for this host in $GIGASEG_SLURM_DIR (default
#                      /tmp/gigaseg-slurm); starts munged, slurmctld and slurmd in the background;
#                      waits until the node takes jobs. Prints the SLURM_CONF line for the shell.
#   cluster.sh stop    stops the daemons and removes the folder.
# The node is this host with max(4, cores) CPUs (so that four ranks run on a 2-core machine),
# proctrack/linuxproc and task/none (no cgroups here), PMIx as the default MPI plugin.
set -euo pipefail
dir=${GIGASEG_SLURM_DIR:-/tmp/gigaseg-slurm}
action=${1:-start}

stop() {
  for daemon in slurmd slurmctld munged; do
    if [ -f "$dir/$daemon.pid" ]; then
      pid=$(cat "$dir/$daemon.pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$dir"
}

if [ "$action" = stop ]; then
  stop
  exit 0
fi
[ "$action" = start ] || { echo "usage: cluster.sh start|stop" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "cluster.sh: run as root (the daemons run as root here)" >&2; exit 2; }

missing=()
for p in slurmctld slurmd slurm-client munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

stop  # a cluster left by an earlier run
mkdir -p "$dir/state" "$dir/spool"
chmod 700 "$dir"
host=$(hostname -s)
cpus=$(nproc)
[ "$cpus" -ge 4 ] || cpus=4
memory=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)

dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge.key"
munged --force --key-file="$dir/munge.key" --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munge.seed"

cat >"$dir/slurm.conf" <<CONF
ClusterName=gigaseg
SlurmctldHost=$host
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SlurmUser=root
SlurmdUser=root
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmdSpoolDir=$dir/spool
StateSaveLocation=$dir/state
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmdParameters=config_overrides
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MaxArraySize=1000
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do
  if sinfo -h -o %t 2>/dev/null | grep -q -E "^(idle|mix|alloc)"; then
    echo "SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.2
done
echo "cluster.sh: the node did not come up; logs in $dir" >&2
tail -n 5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
exit 1
