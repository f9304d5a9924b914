package dev.zklock.embedded;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Checks the libraries the ZooKeeper server needs at run time but declares only as
 * {@code provided}: Dropwizard metrics-core and snappy-java. This artifact brings both;
 * they go missing only when a build excludes them.
 */
public final class EmbeddedZooKeeperDependencies {

	private static final String[][] REQUIRED = {
			{ "com.codahale.metrics.Reservoir", "io.dropwizard.metrics:metrics-core" },
			{ "org.xerial.snappy.SnappyInputStream", "org.xerial.snappy:snappy-java" } };

	private EmbeddedZooKeeperDependencies() {
	}

	/**
	 * Fail when a library the embedded server needs is missing.
	 * @param classLoader the class loader the server runs with
	 * @throws EmbeddedZooKeeperException naming the dependencies to add
	 */
	public static void check(@Nullable ClassLoader classLoader) {
		List<String> missing = new ArrayList<>();
		for (String[] required : REQUIRED) {
			if (!isPresent(required[0], classLoader)) {
				missing.add(required[1]);
			}
		}
		if (!missing.isEmpty()) {
			throw new EmbeddedZooKeeperException(
					"The embedded ZooKeeper server (zk-lock.embedded.enabled=true) needs " + String.join(" and ", missing)
							+ " at run time, and the classpath lacks it",
					"Add " + String.join(" and ", missing) + " to your build (zk-lock-spring-boot-embedded brings them: "
							+ "look for an exclusion), or set zk-lock.embedded.enabled=false.",
					null);
		}
	}

	private static boolean isPresent(String className, @Nullable ClassLoader classLoader) {
		try {
			Class.forName(className, false, classLoader);
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

}
