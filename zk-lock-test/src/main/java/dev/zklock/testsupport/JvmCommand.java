package dev.zklock.testsupport;

import java.io.File;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * The command line that launches a {@link JvmProcess}: the test JVM's java binary (or
 * another JDK's) and class path, {@link ParentWatchdog} in front of the main class,
 * and {@code setpriv} in front of it all when the process runs as a user of its own.
 */
final class JvmCommand {

	private final String mainClass;

	private final List<String> arguments;

	private final List<String> jvmOptions;

	private final Map<String, String> systemProperties;

	private final Map<String, String> environment;

	private final Path javaHome;

	private final Path logbackConfigFile;

	private final List<String> classPathExclusions;

	private final @Nullable Integer uid;

	JvmCommand(JvmProcessOptions options, Path logbackConfigFile) {
		this.mainClass = options.mainClass();
		this.arguments = options.arguments();
		this.jvmOptions = options.jvmOptions();
		this.systemProperties = options.systemProperties();
		this.logbackConfigFile = logbackConfigFile;
		this.environment = options.environment();
		this.classPathExclusions = options.classPathExclusions();
		Path javaHome = options.javaHome();
		this.javaHome = (javaHome != null) ? javaHome : Paths.get(System.getProperty("java.home"));
		this.uid = options.uid();
	}

	/**
	 * A process builder for the command, with the environment variables added and
	 * standard error merged into standard output.
	 * @return the process builder
	 */
	ProcessBuilder processBuilder() {
		ProcessBuilder builder = new ProcessBuilder(command()).redirectErrorStream(true);
		builder.environment().putAll(this.environment);
		return builder;
	}

	List<String> command() {
		List<String> command = new ArrayList<>();
		if (this.uid != null) {
			// reading the class path and writing data directories must not depend on modes
			String capabilities = "+dac_override,+dac_read_search";
			command.addAll(List.of("setpriv", "--reuid=" + this.uid, "--regid=" + this.uid, "--clear-groups",
					"--inh-caps=" + capabilities, "--ambient-caps=" + capabilities));
		}
		command.add(this.javaHome.resolve("bin").resolve("java").toString());
		command.addAll(this.jvmOptions);
		command.add("-Dlogback.configurationFile=" + this.logbackConfigFile);
		command.add("-Dzookeeper.jmx.log4j.disable=true");
		command.add("-Dzookeeper.admin.enableServer=false");
		this.systemProperties.forEach((key, value) -> command.add("-D" + key + "=" + value));
		command.add("-cp");
		command.add(classPath());
		command.add(ParentWatchdog.class.getName());
		command.add(this.mainClass);
		command.addAll(this.arguments);
		return command;
	}

	/**
	 * The class path of the process: the test JVM's, without the entries whose file
	 * name contains one of the excluded fragments.
	 * @return the class path
	 */
	String classPath() {
		return Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> !isExcluded(entry))
			.collect(Collectors.joining(File.pathSeparator));
	}

	private boolean isExcluded(String classPathEntry) {
		Path fileName = Paths.get(classPathEntry).getFileName();
		return fileName != null && this.classPathExclusions.stream().anyMatch(fileName.toString()::contains);
	}

}
