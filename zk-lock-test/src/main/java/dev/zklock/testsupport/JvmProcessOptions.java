package dev.zklock.testsupport;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * The options of a {@link JvmProcess}: where it logs, what it runs with, as whom.
 *
 * @param <B> the builder type, returned by each option for chaining
 */
public abstract class JvmProcessOptions<B extends JvmProcessOptions<B>> {

	final String name;

	final String mainClass;

	@Nullable Path directory;

	String logFileName = "process.log";

	List<String> arguments = List.of();

	List<String> jvmOptions = JvmProcess.DEFAULT_JVM_OPTIONS;

	final Map<String, String> systemProperties = new LinkedHashMap<>();

	@Nullable Consumer<String> outputListener;

	final Map<String, String> environment = new LinkedHashMap<>();

	String rootLogLevel = "INFO";

	final List<String> classPathExclusions = new ArrayList<>();

	@Nullable Path javaHome;

	@Nullable Integer uid;

	JvmProcessOptions(String name, String mainClass) {
		this.name = name;
		this.mainClass = mainClass;
	}

	/**
	 * The directory that receives the log file and the logback configuration.
	 * @param directory an existing directory
	 * @return this builder
	 */
	public B directory(Path directory) {
		this.directory = directory;
		return self();
	}

	/**
	 * The name of the log file in the directory.
	 * @param logFileName the file name, {@code process.log} by default
	 * @return this builder
	 */
	public B logFileName(String logFileName) {
		this.logFileName = logFileName;
		return self();
	}

	/**
	 * The arguments of the main class.
	 * @param arguments the arguments
	 * @return this builder
	 */
	public B arguments(List<String> arguments) {
		this.arguments = List.copyOf(arguments);
		return self();
	}

	/**
	 * The JVM options, replacing the defaults ({@code -Xmx96m}, serial GC, C1 only).
	 * @param jvmOptions the options
	 * @return this builder
	 */
	public B jvmOptions(List<String> jvmOptions) {
		this.jvmOptions = List.copyOf(jvmOptions);
		return self();
	}

	/**
	 * Add system properties.
	 * @param properties the properties
	 * @return this builder
	 */
	public B systemProperties(Map<String, String> properties) {
		this.systemProperties.putAll(properties);
		return self();
	}

	/**
	 * Add environment variables to the inherited environment, such as secrets that
	 * must not show on the command line.
	 * @param variables the variables
	 * @return this builder
	 */
	public B environment(Map<String, String> variables) {
		this.environment.putAll(variables);
		return self();
	}

	/**
	 * Receive every line of output (standard output and error) as it comes, besides
	 * the log file. The listener runs on one thread per process.
	 * @param outputListener the listener
	 * @return this builder
	 */
	public B outputListener(Consumer<String> outputListener) {
		this.outputListener = outputListener;
		return self();
	}

	/**
	 * The level of the process's root logger.
	 * @param level a logback level, {@code INFO} by default
	 * @return this builder
	 */
	public B rootLogLevel(String level) {
		this.rootLogLevel = level;
		return self();
	}

	/**
	 * Leave out of the process's class path every entry whose file name contains one
	 * of the fragments, such as {@code "reactor-core"} for
	 * {@code reactor-core-3.8.7.jar}, to run it as an application without that
	 * library. A fragment that matches nothing leaves the class path as it is, so a
	 * process that relies on the library's absence should check it itself.
	 * @param fileNameFragments parts of the jar or directory names to leave out
	 * @return this builder
	 */
	public B classPathWithout(String... fileNameFragments) {
		this.classPathExclusions.addAll(List.of(fileNameFragments));
		return self();
	}

	/**
	 * Run the process as the given user and group id, through {@code setpriv}, so that
	 * a {@link LoopbackFirewall} can tell its packets apart. It keeps the right to
	 * read and write any file, as the test JVM's root user has. Needs root.
	 * @param uid the user id, which need not exist in {@code /etc/passwd}
	 * @return this builder
	 */
	public B runAs(int uid) {
		this.uid = uid;
		return self();
	}

	/**
	 * The JDK or JRE that runs the process; by default the one running the tests.
	 * @param javaHome its home directory
	 * @return this builder
	 */
	public B javaHome(Path javaHome) {
		this.javaHome = javaHome;
		return self();
	}

	@SuppressWarnings("unchecked")
	private B self() {
		return (B) this;
	}

}
