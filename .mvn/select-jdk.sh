# Sourced by ./mvnw and ./rdmagate: when JAVA_HOME does not point at a JDK 25 or newer,
# use one from the usual places, so the README's commands work on a fresh machine.
rdmagate_java_major() {
  "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'
}
if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/java" ] || [ "$(rdmagate_java_major "$JAVA_HOME")" -lt 25 ] 2>/dev/null; then
  for candidate in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-25-jdk-arm64 /usr/lib/jvm/java-25-openjdk-amd64 \
      /usr/lib/jvm/java-25-openjdk-arm64; do
    if [ -x "$candidate/bin/java" ]; then
      export JAVA_HOME="$candidate"
      break
    fi
  done
fi
unset -f rdmagate_java_major
