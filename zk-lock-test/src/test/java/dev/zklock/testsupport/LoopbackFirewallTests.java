package dev.zklock.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LoopbackFirewall}: a cut stops exactly the flows it names, both ways,
 * open connections included, and nothing is left behind. Two client JVMs run as users
 * of the firewall; an echo server runs in the test JVM.
 */
class LoopbackFirewallTests {

	@TempDir
	Path directory;

	private final List<JvmProcess> clients = new CopyOnWriteArrayList<>();

	private ServerSocket echo;

	private LoopbackFirewall firewall;

	@BeforeEach
	void installFirewall() throws IOException {
		String reason = LoopbackFirewall.unavailableReason();
		if (reason != null && LoopbackFirewall.isRequired()) {
			fail("Partition tests are required (" + LoopbackFirewall.REQUIRED_ENVIRONMENT_VARIABLE + "=true) but "
					+ reason);
		}
		assumeThat(reason).as("no partitions: %s", reason).isNull();
		this.firewall = LoopbackFirewall.install();
		this.echo = new ServerSocket();
		this.echo.bind(new InetSocketAddress(FreePorts.loopback(), 0));
		Thread acceptor = new Thread(this::serveEcho, "echo");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	@AfterEach
	void removeFirewall() throws IOException {
		this.clients.forEach(JvmProcess::kill);
		if (this.echo != null) {
			this.echo.close();
		}
		if (this.firewall != null) {
			this.firewall.close();
		}
	}

	@Test
	void aCutStopsTheNamedUsersFlowsToTheNamedPortsOnly() throws IOException {
		int port = this.echo.getLocalPort();
		List<String> outputA = new CopyOnWriteArrayList<>();
		List<String> outputB = new CopyOnWriteArrayList<>();
		JvmProcess a = client("a", outputA);
		JvmProcess b = client("b", outputB);
		command(a, outputA, "open " + port, "ok open");
		command(a, outputA, "echo", "ok echo");
		command(b, outputB, "open " + port, "ok open");

		this.firewall.cut(List.of(this.firewall.uid("a")), List.of(port));
		// the open connection goes silent both ways, a new one cannot be made
		command(a, outputA, "echo", "failed echo");
		command(a, outputA, "open " + port, "failed open");
		// another user and the test JVM (root) pass
		command(b, outputB, "echo", "ok echo");
		assertThat(echoFromHere(port)).isTrue();
		assertThat(this.firewall.droppedPackets()).isPositive();

		this.firewall.heal();
		command(a, outputA, "open " + port, "ok open");
		command(a, outputA, "echo", "ok echo");
		assertThat(this.firewall.cuts()).isEmpty();

		String table = this.firewall.table();
		this.firewall.close();
		assertThat(nftTables()).doesNotContain(table);
	}

	@Test
	void onlyItsOwnUsersCanBeCut() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.firewall.cut(List.of(0), List.of(2181)))
			.withMessageContaining("not one of this firewall's");
	}

	@Test
	void installingDeletesTheTablesOfDeadTestJvms() throws Exception {
		Process gone = new ProcessBuilder("true").start();
		gone.waitFor();
		String stale = "zklock_test_" + gone.pid() + "_beef";
		String alive = "zklock_test_" + ProcessHandle.current().pid() + "_cafe";
		nft("add", "table", "inet", stale);
		nft("add", "table", "inet", alive);
		try (LoopbackFirewall next = LoopbackFirewall.install()) {
			assertThat(nftTables()).doesNotContain(stale).contains(alive).contains(next.table());
		}
		finally {
			nft("delete", "table", "inet", alive);
		}
	}

	private JvmProcess client(String name, List<String> output) {
		JvmProcess process = JvmProcess.builder("client " + name, LoopbackClientMain.class.getName())
			.directory(this.directory)
			.logFileName("client-" + name + ".log")
			.runAs(this.firewall.uid(name))
			.outputListener(output::add)
			.build();
		this.clients.add(process);
		process.start();
		await("client " + name).atMost(Duration.ofSeconds(60)).until(() -> output.contains("ready"));
		return process;
	}

	private static void command(JvmProcess process, List<String> output, String command, String expected) {
		int before = output.size();
		process.send(command);
		await(command + " in " + process).atMost(Duration.ofSeconds(15)).until(() -> output.size() > before);
		assertThat(output.get(before)).as("%s in %s", command, process).startsWith(expected);
	}

	private static boolean echoFromHere(int port) throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(FreePorts.loopback(), port), 1000);
			socket.setSoTimeout(1000);
			socket.getOutputStream().write(7);
			return socket.getInputStream().read() == 7;
		}
	}

	private static void nft(String... arguments) throws Exception {
		List<String> command = new ArrayList<>(List.of("nft"));
		command.addAll(List.of(arguments));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes());
		assertThat(process.waitFor()).as("%s: %s", command, output).isZero();
	}

	private static String nftTables() throws IOException {
		Process process = new ProcessBuilder("nft", "list", "tables").redirectErrorStream(true).start();
		return new String(process.getInputStream().readAllBytes());
	}

	private void serveEcho() {
		while (!this.echo.isClosed()) {
			try {
				Socket socket = this.echo.accept();
				Thread thread = new Thread(() -> echo(socket), "echo " + socket.getPort());
				thread.setDaemon(true);
				thread.start();
			}
			catch (IOException ex) {
				return;
			}
		}
	}

	private static void echo(Socket socket) {
		try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
			int next;
			while ((next = in.read()) >= 0) {
				out.write(next);
				out.flush();
			}
		}
		catch (IOException ex) {
			// the client went away
		}
	}

}
