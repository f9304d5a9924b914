package dev.zklock.testsupport;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * Network partitions between processes on 127.0.0.1, cut at the packet level with
 * nftables. Every process that may be cut off runs as a user of its own (see
 * {@link #uid(String)} and {@link JvmProcess.Builder#runAs(int)}), because on loopback
 * the kernel gives every connection the source address 127.0.0.1 whatever address
 * the peer listens on.
 * <p>
 * All rules live in one table, {@code inet zklock_test_<pid>_<random>}, that
 * {@link #close()} deletes (a shutdown hook does too, and the next firewall deletes
 * tables whose test JVM has died). Its {@code stamp} chain stamps each new connection
 * opened by one of the firewall's users with that user's id as conntrack mark. A
 * {@link #cut(Collection, Collection) cut} drops, in both directions, the packets of
 * connections that those users opened to those listening ports; {@link #heal()}
 * removes every cut. Connections of other users, such as the test JVM's, other
 * developers' tests, or anything running as root, carry no mark of ours and are never
 * touched.
 * <p>
 * Needs root (or {@code CAP_NET_ADMIN}), the {@code nft} command and {@code setpriv};
 * {@link #unavailableReason()} tells why not.
 */
public final class LoopbackFirewall implements AutoCloseable {

	/**
	 * Environment variable that makes the partition tests fail, not skip, when the
	 * firewall cannot be installed.
	 */
	public static final String REQUIRED_ENVIRONMENT_VARIABLE = "ZK_LOCK_TEST_PARTITIONS_REQUIRED";

	private static final String TABLE_PREFIX = "zklock_test_";

	private static final Pattern TABLE = Pattern.compile("table inet (" + TABLE_PREFIX + "(\\d+)_[0-9a-f]+)");

	private static final Pattern COUNTER = Pattern.compile("counter packets (\\d+)");

	private static final int USERS = 64;

	private final String table;

	private final int firstUid;

	private final Map<String, Integer> uids = new ConcurrentHashMap<>();

	private final List<String> cuts = new ArrayList<>();

	private final Thread cleanup;

	private volatile boolean closed;

	private LoopbackFirewall() {
		this.table = TABLE_PREFIX + ProcessHandle.current().pid() + "_"
				+ Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
		// users that exist nowhere, so that only our processes carry them
		this.firstUid = 3_000_000 + ThreadLocalRandom.current().nextInt(100_000) * USERS;
		this.cleanup = new Thread(this::deleteTable, "loopback-firewall-cleanup");
	}

	/**
	 * Why a firewall cannot be installed here.
	 * @return the reason, or {@code null} when it can
	 */
	public static @Nullable String unavailableReason() {
		if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
			return "network partitions need Linux nftables, not " + System.getProperty("os.name");
		}
		for (String command : List.of("nft", "setpriv")) {
			if (!NftCommands.onPath(command)) {
				return "the '" + command + "' command is not installed (Debian: apt-get install "
						+ (command.equals("nft") ? "nftables" : "util-linux") + ")";
			}
		}
		String switched = NftCommands.run(List.of("setpriv", "--reuid=" + 3_000_000, "--regid=" + 3_000_000,
				"--clear-groups", "--inh-caps=+dac_override,+dac_read_search",
				"--ambient-caps=+dac_override,+dac_read_search", "true"));
		if (switched != null) {
			return "processes cannot run as users of their own (needs root): setpriv failed: " + switched;
		}
		String probe = TABLE_PREFIX + "probe_" + ProcessHandle.current().pid();
		NftCommands.Result created = NftCommands.nft("add table inet " + probe + "\ndelete table inet " + probe + "\n");
		if (created.status() != 0) {
			return "nft cannot create a table (needs root or CAP_NET_ADMIN): " + created.output();
		}
		return null;
	}

	/**
	 * Whether the partition tests must run, so that an unavailable firewall fails them.
	 * @return whether {@value #REQUIRED_ENVIRONMENT_VARIABLE} is {@code true}
	 */
	public static boolean isRequired() {
		return Boolean.parseBoolean(System.getenv(REQUIRED_ENVIRONMENT_VARIABLE));
	}

	/**
	 * Install an empty firewall: no user yet, no cut. Deletes tables left behind by
	 * test JVMs that died.
	 * @return the firewall
	 * @throws IllegalStateException when nft fails
	 */
	public static LoopbackFirewall install() {
		deleteStaleTables();
		LoopbackFirewall firewall = new LoopbackFirewall();
		firewall.apply("table inet " + firewall.table + " {\n"
				+ "  chain stamp { type filter hook output priority mangle; policy accept; }\n"
				+ "  chain partition { type filter hook output priority filter; policy accept; }\n" + "}\n");
		Runtime.getRuntime().addShutdownHook(firewall.cleanup);
		return firewall;
	}

	/**
	 * The table's name.
	 * @return the name
	 */
	public String table() {
		return this.table;
	}

	/**
	 * The user that a process with the given name runs as, new on first use. Its
	 * connections carry its id as conntrack mark from the next connection on.
	 * @param process a name unique in this firewall
	 * @return the user id
	 */
	public synchronized int uid(String process) {
		Integer known = this.uids.get(process);
		if (known != null) {
			return known;
		}
		if (this.uids.size() == USERS) {
			throw new IllegalStateException("A LoopbackFirewall has " + USERS + " users; " + process + " is one too many");
		}
		int uid = this.firstUid + this.uids.size();
		apply("add rule inet " + this.table + " stamp ct state new meta skuid " + uid + " ct mark set " + uid + "\n");
		this.uids.put(process, uid);
		return uid;
	}

	/**
	 * Drop every packet, both ways, of the connections that the given users open to the
	 * given ports on loopback, those already open included.
	 * @param initiators user ids from {@link #uid(String)}
	 * @param listeningPorts the ports they connect to
	 */
	public synchronized void cut(Collection<Integer> initiators, Collection<Integer> listeningPorts) {
		if (initiators.isEmpty() || listeningPorts.isEmpty()) {
			throw new IllegalArgumentException("A cut needs users and ports, got " + initiators + " and " + listeningPorts);
		}
		for (int uid : initiators) {
			if (!this.uids.containsValue(uid)) {
				throw new IllegalArgumentException("User " + uid + " is not one of this firewall's " + this.uids);
			}
		}
		String rule = "oifname \"lo\" ct mark " + set(initiators) + " meta l4proto tcp ct original proto-dst "
				+ set(listeningPorts) + " counter drop";
		apply("add rule inet " + this.table + " partition " + rule + "\n");
		this.cuts.add(rule);
	}

	/**
	 * Cut the connections between two groups of processes both ways: those the first
	 * group opens to the second's ports, and those the second opens to the first's.
	 * @param uidsA the first group's users
	 * @param portsA the ports the first group listens on
	 * @param uidsB the second group's users
	 * @param portsB the ports the second group listens on
	 */
	public void cutBetween(Collection<Integer> uidsA, Collection<Integer> portsA, Collection<Integer> uidsB,
			Collection<Integer> portsB) {
		cut(uidsA, portsB);
		cut(uidsB, portsA);
	}

	/**
	 * Packets the cuts in place have dropped so far.
	 * @return the count
	 */
	public synchronized long droppedPackets() {
		NftCommands.Result listing = NftCommands.nft("list chain inet " + this.table + " partition\n");
		if (listing.status() != 0) {
			throw new IllegalStateException("Could not list the cuts of " + this.table + ": " + listing.output());
		}
		Matcher counters = COUNTER.matcher(listing.output());
		long dropped = 0;
		while (counters.find()) {
			dropped += Long.parseLong(counters.group(1));
		}
		return dropped;
	}

	/**
	 * The cuts in place, as nftables rules.
	 * @return the rules
	 */
	public synchronized List<String> cuts() {
		return List.copyOf(this.cuts);
	}

	/**
	 * Remove every cut; the users and their marks stay.
	 */
	public synchronized void heal() {
		if (!this.closed) {
			apply("flush chain inet " + this.table + " partition\n");
			this.cuts.clear();
		}
	}

	/**
	 * Delete the table, and with it every rule.
	 */
	@Override
	public void close() {
		deleteTable();
		try {
			Runtime.getRuntime().removeShutdownHook(this.cleanup);
		}
		catch (IllegalStateException ex) {
			// the JVM is shutting down and runs the hook anyway
		}
	}

	@Override
	public String toString() {
		return "LoopbackFirewall[" + this.table + ", users " + this.uids + "]";
	}

	private synchronized void deleteTable() {
		if (!this.closed) {
			this.closed = true;
			NftCommands.Result deleted = NftCommands.nft("delete table inet " + this.table + "\n");
			if (deleted.status() != 0 && !deleted.output().contains("No such file")) {
				throw new IllegalStateException("Could not delete nftables table " + this.table + ": "
						+ deleted.output() + "; delete it with 'nft delete table inet " + this.table + "'");
			}
		}
	}

	private void apply(String script) {
		if (this.closed) {
			throw new IllegalStateException(this + " is closed");
		}
		NftCommands.Result result = NftCommands.nft(script);
		if (result.status() != 0) {
			throw new IllegalStateException("nft failed on\n" + script + result.output());
		}
	}

	private static void deleteStaleTables() {
		Matcher tables = TABLE.matcher(NftCommands.nft("list tables\n").output());
		while (tables.find()) {
			long pid = Long.parseLong(tables.group(2));
			if (ProcessHandle.of(pid).isEmpty()) {
				NftCommands.nft("delete table inet " + tables.group(1) + "\n");
			}
		}
	}

	private static String set(Collection<Integer> values) {
		return values.stream().map(String::valueOf).collect(Collectors.joining(", ", "{ ", " }"));
	}

}
