# Sourced by ./lprff and the scripts that start a JVM of the project: finds a JDK 25 as the
# build does (JAVA25_HOME, JAVA_HOME, the other JAVA*_HOME, the usual install folders, then `java`
# on PATH), and reads the project's JVM flags (the pom's lprff.jvm.flags property).

jdk_major=25

# The major version of the JDK or JRE at $1 (from its release file), or nothing.
home_major() {
  [ -f "$1/release" ] && [ -x "$1/bin/java" ] || return 0
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" | head -n 1
}

find_java() {
  local home major
  local -a homes=()
  local preferred="JAVA${jdk_major}_HOME"
  [ -n "${!preferred:-}" ] && homes+=("${!preferred}")
  [ -n "${JAVA_HOME:-}" ] && homes+=("$JAVA_HOME")
  while IFS='=' read -r name value; do
    if [[ $name =~ ^JAVA[0-9]*_HOME$ && $name != "$preferred" && $name != JAVA_HOME ]]; then
      homes+=("$value")
    fi
  done < <(env)
  for dir in /usr/lib/jvm /usr/java /opt/java /opt "$HOME/.sdkman/candidates/java" "$HOME/.jdks" \
    /Library/Java/JavaVirtualMachines; do
    for home in "$dir"/*; do
      [ -d "$home" ] && homes+=("$home" "$home/Contents/Home")
    done
  done
  for home in "${homes[@]}"; do
    major=$(home_major "$home")
    if [ -n "$major" ] && [ "$major" -ge "$jdk_major" ]; then
      echo "$home/bin/java"
      return
    fi
  done
  if command -v java > /dev/null; then
    major=$(java -XshowSettings:properties -version 2>&1 \
      | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p')
    if [ -n "$major" ] && [ "$major" -ge "$jdk_major" ]; then
      command -v java
      return
    fi
  fi
}

# The java of a JDK $jdk_major, or a message and exit 1; $1 names the caller in the message.
require_java() {
  local java
  java=$(find_java)
  if [ -z "$java" ]; then
    echo "$1: needs a JDK $jdk_major and found none (looked at JAVA${jdk_major}_HOME, JAVA_HOME, /usr/lib/jvm, SDKMAN, ~/.jdks and java on PATH): install one, e.g. Temurin $jdk_major or your system's openjdk-$jdk_major-jdk, or point JAVA${jdk_major}_HOME at it." >&2
    exit 1
  fi
  echo "$java"
}

# The value of property $2 in the pom $1, or a message and exit 1.
pom_property() {
  local value
  value=$(sed -n "s:.*<$2>\\(.*\\)</$2>.*:\\1:p" "$1")
  if [ -z "$value" ]; then
    echo "cannot read the property $2 from $1." >&2
    exit 1
  fi
  echo "$value"
}
