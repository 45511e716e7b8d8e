# Sourced by the lprff-spark scripts (after jvm.sh): builds lprff-spark and its class path (Spark
# included) on first use and when a source changes, and runs a main class of it with the
# project's and Spark's JVM flags, Spark logging at WARN.

# Runs main class $1 of lprff-spark with the remaining arguments; $root is the repository.
run_spark_main() {
  local main=$1
  shift
  local java flags spark_flags target classpath jar
  java=$(require_java "$(basename "$0")")
  flags=$(pom_property "$root/pom.xml" lprff.jvm.flags)
  spark_flags=$(pom_property "$root/lprff-spark/pom.xml" spark.jvm.flags)
  target=$root/lprff-spark/target
  classpath=$target/classpath.txt
  if [ ! -f "$classpath" ] || [ -n "$(cd "$root" && find pom.xml lprff-vector lprff-arrow \
      lprff-spark -newer "$classpath" \( -name pom.xml -o -path '*/src/main/*' \) -type f \
      -print -quit 2>/dev/null)" ]; then
    echo "building lprff-spark and its class path…" >&2
    # includeScope compile: the compile and provided (Spark) dependencies, no test ones.
    (cd "$root" && ./mvnw -q -pl lprff-spark -am package dependency:build-classpath \
      -DskipTests -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=compile) >&2
    touch "$classpath"
  fi
  jar=$(ls "$target"/lprff-spark-*.jar | head -n 1)
  # shellcheck disable=SC2086 # the flags are words
  exec "$java" $flags $spark_flags -Xmx8g \
    -Dlog4j2.configurationFile="$root/scripts/lib/spark-log4j2.properties" \
    -cp "$jar:$(cat "$classpath")" "$main" "$@"
}
