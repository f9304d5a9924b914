package dev.zklock.testsupport;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * The options of a {@link JvmProcess} as its {@link JvmProcess.Builder builder} collected
 * them: where it logs, what it runs with, as whom. A value, so that the process and its
 * command line read the options without sharing the builder's state.
 *
 * @param name the name used in logs and error messages
 * @param mainClass the main class, on the test class path
 * @param directory the directory that receives the log file and the logback
 * configuration
 * @param logFileName the name of the log file in the directory
 * @param arguments the arguments of the main class
 * @param jvmOptions the JVM options
 * @param systemProperties the system properties
 * @param outputListener the listener to every line of output, if any
 * @param environment the environment variables added to the inherited ones
 * @param rootLogLevel the level of the process's root logger
 * @param classPathExclusions the fragments of class path entries left out
 * @param javaHome the JDK or JRE that runs the process, the test JVM's when null
 * @param uid the user and group id the process runs as, the test JVM's when null
 */
record JvmProcessOptions(String name, String mainClass, Path directory, String logFileName, List<String> arguments,
		List<String> jvmOptions, Map<String, String> systemProperties, @Nullable Consumer<String> outputListener,
		Map<String, String> environment, String rootLogLevel, List<String> classPathExclusions,
		@Nullable Path javaHome, @Nullable Integer uid) {

	JvmProcessOptions {
		arguments = List.copyOf(arguments);
		jvmOptions = List.copyOf(jvmOptions);
		systemProperties = Map.copyOf(systemProperties);
		environment = Map.copyOf(environment);
		classPathExclusions = List.copyOf(classPathExclusions);
	}

}
