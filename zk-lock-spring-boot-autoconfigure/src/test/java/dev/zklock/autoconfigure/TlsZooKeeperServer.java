package dev.zklock.autoconfigure;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.apache.zookeeper.server.NettyServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServerMain;

import dev.zklock.testsupport.FreePorts;
import dev.zklock.testsupport.JvmProcess;

import static org.awaitility.Awaitility.await;

/**
 * A real ZooKeeper server in its own JVM that has a secure client port on 127.0.0.1
 * and no plain one. It asks clients for a certificate signed by the test CA. Its
 * settings stay in that JVM: the {@code ssl.*} keys of a server configuration become
 * system properties, which would leak into in-JVM clients.
 */
final class TlsZooKeeperServer implements AutoCloseable {

	private final JvmProcess process;

	private final int port;

	private TlsZooKeeperServer(JvmProcess process, int port) {
		this.process = process;
		this.port = port;
	}

	static TlsZooKeeperServer start(TestCertificates certificates, Path dir) throws IOException {
		int port = FreePorts.next();
		Path data = Files.createDirectories(dir.resolve("data"));
		String config = """
				tickTime=2000
				dataDir=%s
				secureClientPortAddress=127.0.0.1
				secureClientPort=%d
				serverCnxnFactory=%s
				admin.enableServer=false
				ssl.keyStore.location=%s
				ssl.keyStore.password=%s
				ssl.keyStore.type=PKCS12
				ssl.trustStore.location=%s
				ssl.trustStore.password=%s
				ssl.trustStore.type=PKCS12
				""".formatted(data, port, NettyServerCnxnFactory.class.getName(), certificates.serverKeyStore(),
				certificates.password(), certificates.trustStore(), certificates.password());
		Path configFile = Files.writeString(dir.resolve("zoo.cfg"), config);
		// its watchdog halts the server when the test JVM goes away
		JvmProcess process = JvmProcess.builder("TLS ZooKeeper", ZooKeeperServerMain.class.getName())
			.directory(dir)
			.arguments(List.of(configFile.toString()))
			.build();
		process.start();
		TlsZooKeeperServer server = new TlsZooKeeperServer(process, port);
		try {
			await().atMost(Duration.ofSeconds(60)).until(server::isListening);
		}
		catch (RuntimeException ex) {
			server.close();
			throw new IllegalStateException("TLS ZooKeeper did not listen on " + port + ": " + process.diagnostics(), ex);
		}
		return server;
	}

	int port() {
		return this.port;
	}

	String connectString() {
		return "127.0.0.1:" + this.port;
	}

	String output() {
		return this.process.diagnostics();
	}

	private boolean isListening() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", this.port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	@Override
	public void close() {
		this.process.stop();
	}

}
