package dev.zklock.testsupport;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The options of a ZooKeeper server's own JVM, held by the builders of the fixtures that
 * run one ({@link ZooKeeperProcess.Builder}, {@link ZooKeeperEnsemble.Builder}), and the
 * process they make of a server's {@code zoo.cfg}.
 */
final class ServerJvmOptions {

	private List<String> jvmOptions = JvmProcess.DEFAULT_JVM_OPTIONS;

	/**
	 * Replace the JVM options.
	 * @param jvmOptions the JVM options
	 */
	void jvmOptions(List<String> jvmOptions) {
		this.jvmOptions = List.copyOf(jvmOptions);
	}

	/**
	 * Write the server's {@code zoo.cfg} into its directory and prepare its process.
	 * @param name the process's name, for logs and error messages
	 * @param mainClass the ZooKeeper main class
	 * @param directory the server's directory
	 * @param config the configuration to write
	 * @param systemProperties the settings that ZooKeeper reads from system properties
	 * only, see {@link ServerOptions#sweepProperties()}
	 * @return the process's builder, for more options
	 */
	JvmProcess.Builder process(String name, String mainClass, Path directory, ZooKeeperConfig config,
			Map<String, String> systemProperties) {
		Path configFile = directory.resolve("zoo.cfg");
		config.writeTo(configFile);
		return JvmProcess.builder(name, mainClass)
			.directory(directory)
			.logFileName("server.log")
			.arguments(List.of(configFile.toString()))
			.jvmOptions(this.jvmOptions)
			.systemProperties(systemProperties);
	}

}
