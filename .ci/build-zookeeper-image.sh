#!/usr/bin/env bash
# Builds the Docker image zookeeper-local:3.9.5 without a registry: a busybox root
# filesystem, a jlink JRE made from the host JDK, the glibc libraries that JRE needs,
# and the ZooKeeper server jars collected by Maven from .ci/zookeeper-image/pom.xml.
# The image mirrors the official `zookeeper` image: it reads /conf/zoo.cfg, keeps its
# data in /data and runs `zkServer.sh start-foreground`.
# Idempotent: does nothing when the image already exists.
set -Eeuo pipefail

IMAGE="${ZK_LOCK_LOCAL_IMAGE:-zookeeper-local:3.9.5}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JRE_MODULES="java.base,java.logging,java.management,java.naming,java.security.jgss,java.security.sasl,java.xml,jdk.crypto.ec,jdk.management,jdk.unsupported"

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "Image $IMAGE already exists, not rebuilding"
  exit 0
fi

for tool in jlink ldd ldconfig docker; do
  command -v "$tool" >/dev/null || { echo "build-zookeeper-image: '$tool' is needed but not on PATH" >&2; exit 1; }
done
BUSYBOX=/bin/busybox
# ldd fails on a static binary
if [ ! -x "$BUSYBOX" ] || ldd "$BUSYBOX" >/dev/null 2>&1; then
  echo "build-zookeeper-image: a static $BUSYBOX is needed (apt-get install busybox-static)" >&2
  exit 1
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/zookeeper-image.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
ROOTFS="$WORK/rootfs"
ZK_HOME="$ROOTFS/apache-zookeeper"
mkdir -p "$ROOTFS"/{bin,conf,data,datalog,logs,etc,opt} "$ZK_HOME"/{bin,lib}
install -d -m 1777 "$ROOTFS/tmp"

echo "Collecting ZooKeeper server jars"
"$ROOT/mvnw" -B -q -f "$ROOT/.ci/zookeeper-image/pom.xml" dependency:copy-dependencies \
  -DoutputDirectory="$ZK_HOME/lib"

echo "Making a JRE with jlink ($JRE_MODULES)"
jlink --add-modules "$JRE_MODULES" --strip-debug --no-header-files --no-man-pages \
  --compress=2 --output "$ROOTFS/opt/java"

echo "Copying the shared libraries the JRE needs"
{
  ldd "$ROOTFS/opt/java/bin/java"
  find "$ROOTFS/opt/java" -name '*.so' -exec ldd {} \;
} 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u |
  while read -r lib; do
    cp -L --parents "$lib" "$ROOTFS/"
  done
printf '/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n/lib/aarch64-linux-gnu\n/usr/lib/aarch64-linux-gnu\n' \
  >"$ROOTFS/etc/ld.so.conf"
ldconfig -r "$ROOTFS"

echo "Installing busybox"
cp "$BUSYBOX" "$ROOTFS/bin/busybox"
for applet in $("$BUSYBOX" --list); do
  [ -e "$ROOTFS/bin/$applet" ] || ln -s busybox "$ROOTFS/bin/$applet"
done
printf 'root:x:0:0:root:/root:/bin/sh\nzookeeper:x:1000:1000:zookeeper:/data:/bin/sh\n' >"$ROOTFS/etc/passwd"
printf 'root:x:0:\nzookeeper:x:1000:\n' >"$ROOTFS/etc/group"

cat >"$ROOTFS/conf/logback.xml" <<'EOF'
<configuration>
  <appender name="CONSOLE" class="ch.qos.logback.core.ConsoleAppender">
    <encoder>
      <pattern>%d{ISO8601} [myid:%X{myid}] - %-5p [%t:%C{1}@%L] - %m%n</pattern>
    </encoder>
  </appender>
  <root level="INFO">
    <appender-ref ref="CONSOLE"/>
  </root>
</configuration>
EOF

# Same entry point contract as the official image: write a default zoo.cfg only when
# none was given, write myid from ZOO_MY_ID, then run the command.
cat >"$ROOTFS/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
set -e
ZOO_CONF_DIR="${ZOO_CONF_DIR:-/conf}"
ZOO_DATA_DIR="${ZOO_DATA_DIR:-/data}"
ZOO_DATA_LOG_DIR="${ZOO_DATA_LOG_DIR:-/datalog}"
if [ ! -f "$ZOO_CONF_DIR/zoo.cfg" ]; then
  {
    echo "dataDir=$ZOO_DATA_DIR"
    echo "dataLogDir=$ZOO_DATA_LOG_DIR"
    echo "tickTime=${ZOO_TICK_TIME:-2000}"
    echo "initLimit=${ZOO_INIT_LIMIT:-5}"
    echo "syncLimit=${ZOO_SYNC_LIMIT:-2}"
    echo "maxClientCnxns=${ZOO_MAX_CLIENT_CNXNS:-60}"
    echo "standaloneEnabled=${ZOO_STANDALONE_ENABLED:-true}"
    echo "admin.enableServer=false"
    echo "4lw.commands.whitelist=${ZOO_4LW_COMMANDS_WHITELIST:-srvr}"
    echo "clientPort=${ZOO_PORT:-2181}"
  } >"$ZOO_CONF_DIR/zoo.cfg"
fi
if [ -n "${ZOO_MY_ID:-}" ] && [ ! -f "$ZOO_DATA_DIR/myid" ]; then
  echo "$ZOO_MY_ID" >"$ZOO_DATA_DIR/myid"
fi
exec "$@"
EOF

# The subset of zkServer.sh that containers use.
cat >"$ZK_HOME/bin/zkServer.sh" <<'EOF'
#!/bin/sh
ZOOCFGDIR="${ZOOCFGDIR:-/conf}"
ZOOCFG="$ZOOCFGDIR/${ZOOCFG:-zoo.cfg}"
CMD="java -Dzookeeper.log.dir=${ZOO_LOG_DIR:-/logs} -Dzookeeper.jmx.log4j.disable=true \
  -Xmx${ZK_SERVER_HEAP:-1000}m $SERVER_JVMFLAGS $JVMFLAGS \
  -cp $ZOOCFGDIR:/apache-zookeeper/lib/* org.apache.zookeeper.server.quorum.QuorumPeerMain $ZOOCFG"
case "$1" in
  start-foreground)
    # word splitting of CMD is intended; the class path glob is expanded by java
    set -f
    exec $CMD
    ;;
  print-cmd)
    echo "$CMD"
    ;;
  *)
    echo "Usage: zkServer.sh {start-foreground|print-cmd}" >&2
    exit 2
    ;;
esac
EOF
chmod 755 "$ROOTFS/docker-entrypoint.sh" "$ZK_HOME/bin/zkServer.sh"

echo "Importing $IMAGE"
tar -C "$ROOTFS" --numeric-owner -c . | docker import \
  --change 'ENV PATH=/apache-zookeeper/bin:/opt/java/bin:/bin' \
  --change 'ENV JAVA_HOME=/opt/java' \
  --change 'ENV ZOOCFGDIR=/conf' \
  --change 'ENV ZOO_CONF_DIR=/conf' \
  --change 'ENV ZOO_DATA_DIR=/data' \
  --change 'ENV ZOO_DATA_LOG_DIR=/datalog' \
  --change 'ENV ZOO_LOG_DIR=/logs' \
  --change 'WORKDIR /apache-zookeeper' \
  --change 'EXPOSE 2181 2888 3888' \
  --change 'ENTRYPOINT ["/docker-entrypoint.sh"]' \
  --change 'CMD ["zkServer.sh", "start-foreground"]' \
  - "$IMAGE" >/dev/null
docker image ls "$IMAGE"
