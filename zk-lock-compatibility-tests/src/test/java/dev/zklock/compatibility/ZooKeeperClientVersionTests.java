package dev.zklock.compatibility;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.zookeeper.Version;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ZooKeeper client a user of the starter gets. This module is built like a
 * user's application (Boot's parent, not zk-lock's), so its class path is the one a
 * consumer resolves: the starter must bring zk-lock's {@code zookeeper.version}, not
 * the older one Curator's pom names.
 */
class ZooKeeperClientVersionTests {

	@Test
	void theStarterBringsTheZooKeeperClientZkLockIsBuiltWith() throws IOException {
		String expected = zkLockZooKeeperVersion();
		assertThat(Version.getFullVersion()).startsWith(expected + "-");
		String jar = Path.of(ZooKeeper.class.getProtectionDomain().getCodeSource().getLocation().getPath())
			.getFileName()
			.toString();
		assertThat(jar).isEqualTo("zookeeper-" + expected + ".jar");
	}

	private static String zkLockZooKeeperVersion() throws IOException {
		String parent = Files.readString(Path.of("..", "pom.xml"));
		Matcher version = Pattern.compile("<zookeeper.version>([^<]+)</zookeeper.version>").matcher(parent);
		assertThat(version.find()).as("zookeeper.version in zk-lock's parent pom").isTrue();
		return version.group(1);
	}

}
