package dev.zklock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * A {@code zoo.cfg}: the settings every fixture shares plus its own.
 */
final class ZooKeeperConfig {

	private final Map<String, String> settings = new LinkedHashMap<>();

	private ZooKeeperConfig() {
	}

	/**
	 * A server that listens on 127.0.0.1 only, with the AdminServer off, the fixtures'
	 * four-letter words allowed and no limit on connections per client address.
	 * @param tickTime the tick time
	 * @param dataDirectory the data directory, as the server sees it
	 * @param clientPort the client port
	 * @return the configuration
	 */
	static ZooKeeperConfig server(Duration tickTime, String dataDirectory, int clientPort) {
		ZooKeeperConfig config = new ZooKeeperConfig();
		config.set("tickTime", Long.toString(tickTime.toMillis()));
		config.set("dataDir", dataDirectory);
		config.set("clientPort", Integer.toString(clientPort));
		config.set("clientPortAddress", "127.0.0.1");
		config.set("maxClientCnxns", "0");
		config.set("admin.enableServer", "false");
		config.set("4lw.commands.whitelist", FourLetterWords.WHITELIST);
		return config;
	}

	ZooKeeperConfig set(String key, String value) {
		this.settings.put(key, value);
		return this;
	}

	ZooKeeperConfig setAll(Map<String, String> settings) {
		this.settings.putAll(settings);
		return this;
	}

	Properties toProperties() {
		Properties properties = new Properties();
		properties.putAll(this.settings);
		return properties;
	}

	String toText() {
		return this.settings.entrySet()
			.stream()
			.map((entry) -> entry.getKey() + "=" + entry.getValue())
			.collect(Collectors.joining("\n", "", "\n"));
	}

	void writeTo(Path file) {
		try {
			Files.writeString(file, toText(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write " + file, ex);
		}
	}

}
