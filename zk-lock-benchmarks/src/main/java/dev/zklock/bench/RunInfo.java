package dev.zklock.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a run was taken on: machine, load before and after, versions and settings.
 */
final class RunInfo {

	private final Map<String, String> values = new LinkedHashMap<>();

	private RunInfo() {
	}

	static RunInfo start(String mode) {
		RunInfo info = new RunInfo();
		info.values.put("mode", mode);
		info.values.put("started", Instant.now().toString());
		info.values.put("loadBefore", loadAverage());
		info.values.put("cpu", cpuModel());
		info.values.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
		info.values.put("memory", memory());
		info.values.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
				+ System.getProperty("os.arch"));
		info.values.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
		info.values.put("jvmArgs", String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
		return info;
	}

	void zooKeeper(String connectString) throws IOException {
		Map<String, String> mntr = ZooKeeperMonitor.mntr(connectString);
		this.values.put("zookeeper", mntr.getOrDefault("zk_version", "unknown"));
		this.values.put("zookeeperServer", "standalone, separate JVM, default settings (forceSync=yes, tickTime=2000, "
				+ "container check every 60 s)");
	}

	void finish(Instant finished) {
		this.values.put("finished", finished.toString());
		this.values.put("loadAfter", loadAverage());
	}

	void write(Path file) throws IOException {
		StringBuilder json = new StringBuilder("{\n");
		int i = 0;
		for (Map.Entry<String, String> entry : this.values.entrySet()) {
			json.append("  \"").append(entry.getKey()).append("\": \"").append(escape(entry.getValue())).append('"');
			json.append((++i < this.values.size()) ? ",\n" : "\n");
		}
		json.append("}\n");
		Files.writeString(file, json, StandardCharsets.UTF_8);
	}

	private static String loadAverage() {
		return read("/proc/loadavg", "unknown").trim();
	}

	private static String cpuModel() {
		for (String line : read("/proc/cpuinfo", "").split("\n")) {
			if (line.startsWith("model name")) {
				return line.substring(line.indexOf(':') + 1).trim();
			}
		}
		return System.getProperty("os.arch");
	}

	private static String memory() {
		for (String line : read("/proc/meminfo", "").split("\n")) {
			if (line.startsWith("MemTotal:")) {
				long kib = Long.parseLong(line.replaceAll("[^0-9]", ""));
				return String.format("%.0f GiB", kib / 1024.0 / 1024.0);
			}
		}
		return "unknown";
	}

	private static String read(String file, String fallback) {
		try {
			return Files.readString(Path.of(file));
		}
		catch (IOException ex) {
			return fallback;
		}
	}

	private static String escape(String value) {
		StringBuilder out = new StringBuilder();
		for (char c : value.toCharArray()) {
			if (c == '"' || c == '\\') {
				out.append('\\').append(c);
			}
			else if (c < 0x20) {
				out.append(String.format("\\u%04x", (int) c));
			}
			else {
				out.append(c);
			}
		}
		return out.toString();
	}

}
