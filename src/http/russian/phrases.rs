//! The phrase book: every sentence the service says to a client, as its English pattern
//! and its Russian. In a pattern `{}` is a value copied as it came (an id, a serial, a
//! duration) and `{s}` a sentence of its own, translated in turn (a validation's reason
//! after `field …`, an SNMP failure inside a poll's). In the Russian, `{1}`, `{2}`, …
//! name the holes in the English order. Of the patterns a sentence fits, the one with the
//! most fixed words wins, so "no ONU with id {} on this OLT" beats "no ONU with id {}".

mod pattern;

use pattern::{Pattern, Quotations};

/// Patterns and their Russian. Grouped by where the sentences arise.
const PHRASES: &[(&str, &str)] = &[
    // The key check (src/auth.rs).
    ("the X-API-Key header is missing", "нет заголовка `X-API-Key`"),
    ("the X-API-Key header is not valid text", "заголовок `X-API-Key` — не текст"),
    ("the API key is unknown or revoked", "API-ключ неизвестен или отозван"),
    ("key `{}` may not be used from {}", "ключ `{1}` нельзя использовать с адреса {2}"),
    ("key `{}` is over its rate of {}; retry after {} s", "ключ `{1}` превысил свою частоту запросов ({2}); повторите через {3} с"),
    ("key `{}` is READ_ONLY; {} needs a FULL key", "ключ `{1}` только для чтения (READ_ONLY); для {2} нужен ключ FULL"),
    // The cluster (src/member/forward.rs).
    ("this member sees no majority of the {} cluster members; cannot reach: {}", "этот участник кластера не видит большинства из {1} участников; недоступны: {2}"),
    ("cluster member `{}`, which serves this, did not answer within {}s", "участник кластера `{1}`, который это обслуживает, не ответил за {2} с"),
    ("OLT {} is served by cluster member `{}`, which this member cannot reach now", "OLT {1} обслуживает участник кластера `{2}`, с которым этот участник сейчас не связан"),
    ("a forwarded request that does not parse", "пересланный запрос не разбирается"),
    ("a forwarded request that is not HTTP", "пересланный запрос — не HTTP"),
    ("the body could not be read: {}", "тело запроса не прочитано: {1}"),
    // Routes, bodies and query strings (src/http, src/body.rs, src/api/path.rs).
    ("no resource at {}", "по адресу {1} ничего нет"),
    ("{} is not allowed on {}", "метод {1} не разрешён для {2}"),
    ("{} cannot answer in a type you accept", "{1} не отвечает ни в одном из принимаемых вами типов"),
    ("{} does not take a body of this type", "{1} не принимает тело запроса такого типа"),
    ("{} takes a body of type `{}`, not `{}`", "{1} принимает тело запроса типа `{2}`, а не `{3}`"),
    ("{} refused the request ({})", "{1} отклонил запрос ({2})"),
    ("the body is too large", "тело запроса слишком велико"),
    ("the body exceeds {} bytes", "тело запроса длиннее {1} байт"),
    ("the body did not arrive in full within {}", "тело запроса не пришло целиком за {1}"),
    ("the body cannot be read: {}", "тело запроса не читается: {1}"),
    ("the body cannot be read (at most {} bytes): {}", "тело запроса не читается (не больше {1} байт): {2}"),
    ("the body is not the JSON this endpoint takes: {s}", "тело запроса — не тот JSON, что принимает этот адрес: {1}"),
    ("JSON-RPC batches are not supported: send one message per request", "пакеты JSON-RPC не поддерживаются: отправляйте одно сообщение за запрос"),
    ("the query string is malformed: {}", "строка запроса искажена: {1}"),
    ("parameter `{}` is empty or only spaces; give it a value or leave it out", "параметр `{1}` пуст или из одних пробелов; задайте значение или уберите его"),
    ("parameter `{}` holds a control character (such as NUL or a line break)", "параметр `{1}` содержит управляющий символ (например, NUL или перевод строки)"),
    ("parameter `{}` is required", "параметр `{1}` обязателен"),
    ("parameter `{}`: {s}", "параметр `{1}`: {2}"),
    ("parameter `{}` must not be after `{}`", "параметр `{1}` не может быть позже `{2}`"),
    ("path parameter `{}` must be a positive integer, got `{}`", "параметр пути `{1}` должен быть целым положительным числом, получено `{2}`"),
    ("the path is not valid: {}", "путь недопустим: {1}"),
    ("header `Last-Event-ID` must be an event id (an integer)", "заголовок `Last-Event-ID` должен быть id события (целым числом)"),
    ("the period starts before the history kept (szo.history_retention = {})", "период начинается раньше хранимой истории (szo.history_retention = {1})"),
    ("is given more than once", "задан больше одного раза"),
    ("must be between {} and {}, got {}", "должен быть от {1} до {2}, получено {3}"),
    ("must be an integer, got `{}`", "должен быть целым числом, получено `{1}`"),
    ("must be a local date-time like 2026-11-21T19:15:03, got `{}`", "должен быть местными датой и временем вида 2026-11-21T19:15:03, получено `{1}`"),
    ("must be a step like 5m, 1h or 1d (1 to 999 minutes, hours or days), got `{}`", "должен быть шагом вида 5m, 1h или 1d (от 1 до 999 минут, часов или дней), получено `{1}`"),
    ("must be one of {}", "должен быть одним из: {1}"),
    ("unknown variant `{}`, expected {s}", "неизвестное значение `{1}`, ожидалось {2}"),
    ("one of {}", "одно из: {1}"),
    ("`{}` or `{}`", "`{1}` или `{2}`"),
    // axum's and serde_json's words about a body (inside "the body is not the JSON …").
    ("{s} at line {} column {}", "{1} (строка {2}, столбец {3})"),
    ("missing field `{}`", "нет поля `{1}`"),
    ("unknown field `{}`, expected {s}", "неизвестное поле `{1}`, ожидалось {2}"),
    ("invalid type: {}, expected {}", "неверный тип: {1}, ожидалось {2}"),
    ("invalid value: {}, expected {}", "неверное значение: {1}, ожидалось {2}"),
    ("expected value", "ожидалось значение"),
    ("Failed to parse the request body as JSON: {s}", "не разбирается: {1}"),
    ("Failed to deserialize the JSON body into the target type: {s}", "не того вида: {1}"),
    ("EOF while parsing a string", "строка оборвалась"),
    ("EOF while parsing an object", "объект оборвался"),
    ("EOF while parsing a list", "список оборвался"),
    ("EOF while parsing a value", "значение оборвалось"),
    ("trailing characters", "лишние символы после JSON"),
    ("expected {s}", "ожидалось {1}"),
    ("key must be a string", "ключ должен быть строкой"),
    ("invalid number", "неверное число"),
    ("expected ident", "ожидалось `true`, `false` или `null`"),
    ("control character (\\u0000-\\u001F) found while parsing a string", "в строке управляющий символ (`\\u0000`–`\\u001F`)"),
    // What is not there (src/state.rs, src/api).
    ("no OLT with id {}", "нет OLT с id {1}"),
    ("no ONU with id {}", "нет ONU с id {1}"),
    ("no ONU with id {} on this OLT", "на этом OLT нет ONU с id {1}"),
    ("no node with id {}", "нет узла с id {1}"),
    ("no СЗО with id {}", "нет СЗО с id {1}"),
    ("OLT {} has no config backup {}", "у OLT {1} нет резервной копии конфигурации {2}"),
    ("no file /ui/{} in the operator page", "в странице оператора нет файла /ui/{1}"),
    ("internal error; see the service log", "внутренняя ошибка; подробности в журнале сервиса"),
    ("the inventory file is invalid, the running inventory stays: {}", "файл инвентаря неверен, действующий инвентарь сохранён: {1}"),
    ("the SSH host key of OLT {} is pinned by ssh.host_key in the inventory; change it there and reload the inventory", "SSH-ключ хоста OLT {1} закреплён параметром ssh.host_key в инвентаре; измените его там и перечитайте инвентарь"),
    // A field of a body (src/api/onu_actions.rs, subscriber.rs, provisioning_actions.rs).
    ("field `{}` {s}", "поле `{1}` {2}"),
    ("field `{}` must be between {} and {}, got {}", "поле `{1}` должно быть от {2} до {3}, получено {4}"),
    ("field `vlan`: VLAN {} is not configured on OLT {} (its VLANs: {})", "поле `vlan`: VLAN {1} не настроен на OLT {2} (его VLAN: {3})"),
    ("must have 1 to {} characters, got {}", "должно содержать от 1 до {1} символов, получено {2}"),
    ("must have at most {} characters, got {}", "должно содержать не больше {1} символов, получено {2}"),
    ("may hold only ASCII letters, digits, spaces and `{}`; {s} is not allowed", "может содержать только латинские буквы, цифры, пробелы и `{1}`; {2} не допускается"),
    ("may not start or end with a space", "не может начинаться или заканчиваться пробелом"),
    ("may not hold {s} U+{}", "не может содержать {1} U+{2}"),
    ("control character U+{}", "управляющий символ U+{1}"),
    ("control character", "управляющий символ"),
    ("bidirectional control", "символ управления направлением текста"),
    ("line or paragraph separator", "разделитель строк или абзацев"),
    ("invisible format character", "невидимый символ форматирования"),
    ("must be 1 to 32 letters, digits, `_`, `.` or `-`", "должно состоять из 1–32 латинских букв, цифр, `_`, `.` или `-`"),
    ("must look like `0/1/0` or `0/1`", "должно иметь вид `0/1/0` или `0/1`"),
    ("must be a GPON serial: 4 letters or digits and 8 hex digits (`HWTC1A2B3C4D`)", "должно быть серийным номером GPON: 4 буквы или цифры и 8 шестнадцатеричных цифр (`HWTC1A2B3C4D`)"),
    ("must be the ONU's MAC (`fc:fa:f7:12:34:56`) on this EPON OLT", "должно быть MAC-адресом ONU (`fc:fa:f7:12:34:56`) на этом EPON OLT"),
    ("must be between {} and {} on this OLT, got {}", "должно быть от {1} до {2} на этом OLT, получено {3}"),
    ("is required on this OLT", "обязательно на этом OLT"),
    ("does not apply to a {} OLT", "не применяется к OLT {1}"),
    // Provisioning (src/api/provisioning_actions.rs).
    ("listing the ONU profiles of OLT {} is not supported on the {} family ({}): no source settles the command; the device checks the ONU type an authorisation names", "чтение профилей ONU на OLT {1} не поддерживается для семейства {2} ({3}): ни один источник не подтверждает команду; тип ONU при авторизации проверит само устройство"),
    ("provisioning ONUs on OLT {} is not supported on the {} family ({}): no public source gives its commands", "регистрация ONU на OLT {1} не поддерживается для семейства {2} ({3}): ни один открытый источник не даёт её команд"),
    ("provisioning ONUs is not supported on the {} family of {}: no public source gives its commands, and none is guessed", "регистрация ONU не поддерживается для семейства {1} производителя {2}: ни один открытый источник не даёт её команд, а угадывать их сервис не станет"),
    ("OLT {} is of the {} family of {}, whose unconfigured ONUs no public source shows how to read", "OLT {1} относится к семейству {2} производителя {3}: ни один открытый источник не показывает, как читать его незарегистрированные ONU"),
    ("OLT {} is of the {} family ({}), for which no public source gives the command for {s}; ponkeeper does not guess one", "OLT {1} относится к семейству {2} ({3}), для которого ни один открытый источник не даёт команды для действия «{4}»; угадывать её сервис не станет"),
    ("serial {} is already registered on OLT {} as ONU {}", "серийный номер {1} уже зарегистрирован на OLT {2} как ONU {3}"),
    ("port {} has no free ONU index", "на порту {1} нет свободного индекса ONU"),
    ("ONU index {} on port {} is taken", "индекс ONU {1} на порту {2} занят"),
    ("OLT {} accepted the authorisation, but its next poll shows no ONU {} on port {}", "OLT {1} принял авторизацию, но следующий опрос не показывает ONU {2} на порту {3}"),
    ("ONU {} serves СЗО {} `{}`; take it out of the inventory's СЗО first", "ONU {1} обслуживает СЗО {2} `{3}`; сначала уберите её из СЗО в инвентаре"),
    ("the OLT's vendor is not known yet: `vendor = \"auto\"` is detected by the first good poll", "производитель OLT ещё не известен: `vendor = \"auto\"` определяется первым удачным опросом"),
    // An OLT's actions (actors/src/olt).
    ("OLT {} is DISABLED in the inventory", "OLT {1} отключён в инвентаре (DISABLED)"),
    ("OLT {} did not answer in time", "OLT {1} не ответил вовремя"),
    ("OLT {} is not running", "OLT {1} не запущен"),
    ("cancelled: the service is shutting down ({})", "отменено: сервис останавливается ({1})"),
    ("{s} on OLT {} is already running", "{1} на OLT {2} уже выполняется"),
    ("a reboot of ONU {}", "перезагрузка ONU {1}"),
    ("a VLAN change of ONU {}", "смена VLAN ONU {1}"),
    ("a description change of ONU {}", "смена описания ONU {1}"),
    ("a config backup", "резервное копирование конфигурации"),
    ("a listing of the ONU profiles", "чтение профилей ONU"),
    ("an authorisation on port {} index {}", "авторизация на порту {1}, индекс {2}"),
    ("a removal of ONU {} on port {}", "удаление ONU {1} на порту {2}"),
    ("OLT {} has no `ssh` in the inventory", "у OLT {1} нет `ssh` в инвентаре"),
    ("the SSH password of OLT {} is missing: environment variable {} is not set", "нет SSH-пароля OLT {1}: переменная окружения {2} не задана"),
    ("the device printed no running configuration", "устройство не выдало текущую конфигурацию"),
    ("the provisioning job reported nothing", "задание авторизации ничего не сообщило"),
    ("cannot store the backup: {}", "не удаётся сохранить резервную копию: {1}"),
    ("OLT {}: {s}", "OLT {1}: {2}"),
    ("OLT {} is {}: its ONUs cannot be read now", "OLT {1} в состоянии {2}: его ONU сейчас не прочитать"),
    ("OLT {} already has {} optics reads waiting, as many as its budget of {} requests a second allows", "у OLT {1} уже ждут чтений оптики: {2}, столько, сколько позволяет его бюджет {3} запросов в секунду"),
    ("the OLT did not answer the read: {s}", "OLT не ответил на чтение: {1}"),
    ("the OLT no longer lists ONU {}: its optics cannot be read", "OLT больше не показывает ONU {1}: её оптику не прочитать"),
    ("the session with OLT {} was restarted while the action waited or ran", "сессия с OLT {1} перезапущена, пока действие ждало или выполнялось"),
    ("the fleet view did not answer within {}", "сводка сети не ответила за {1}"),
    // SSH (actors/src/ssh.rs).
    ("SSH connection to {} failed: {}", "SSH-соединение с {1} не удалось: «{2}»"),
    ("SSH login as `{}` was refused", "вход по SSH как `{1}` отклонён"),
    ("the device did not answer `{}` within {}", "устройство не ответило на `{1}` за {2}"),
    ("the device refused `{}`: {}", "устройство отклонило `{1}`: «{2}»"),
    ("the SSH session closed", "SSH-сессия закрылась"),
    ("the SSH session closed while `{}` was running", "SSH-сессия закрылась во время `{1}`"),
    ("the SSH host key of {} is {}, not the expected {}; refused before logging in", "SSH-ключ хоста {1} — {2}, а не ожидаемый {3}; отказано до входа"),
    ("the SSH host key of {} changed: expected {} ({}), the device offered {}; refused before logging in", "SSH-ключ хоста {1} изменился: ожидался {2} ({3}), устройство предложило {4}; отказано до входа"),
    // SNMP and the session (actors/src/snmp.rs, actors/src/olt/session.rs).
    ("no answer within {} ({} attempts)", "нет ответа за {1} (попыток: {2})"),
    ("poll exceeded its deadline of {}", "опрос не уложился в свой срок {1}"),
    ("cannot reach {}: {s}", "{1} недоступен: {2}"),
    ("nothing listens there (ICMP port unreachable)", "там никто не слушает (ICMP: порт недоступен)"),
    ("agent answered with error status {} at varbind {}", "агент ответил статусом ошибки {1} на переменной {2}"),
    ("unusable answer: {}", "непригодный ответ: «{1}»"),
    ("authentication failed: wrong password or user", "аутентификация не прошла: неверный пароль или пользователь"),
    ("vendor not detected: sysObjectID {} and sysDescr {} match no profile; set `vendor` in the inventory", "производитель не определён: sysObjectID {1} и sysDescr {2} не подходят ни к одному профилю; укажите `vendor` в инвентаре"),
    ("actor started", "актор запущен"),
    ("poll succeeded", "опрос удался"),
    ("{} failed polls in a row, last: {s}", "неудачных опросов подряд: {1}, последний: {2}"),
    ("poll failed: {s}", "опрос не удался: {1}"),
    ("restarted on request after a crash loop", "перезапущен по запросу после цикла сбоев"),
    ("session restarted on request", "сессия перезапущена по запросу"),
    ("inventory changed", "инвентарь изменился"),
    ("disabled in the inventory", "отключён в инвентаре"),
    // A poll's warnings (actors/src/poller.rs, poller/onu_interfaces.rs).
    ("IF-MIB lists {} ONU interface but the ONU table gave an ONU for {} of them: none for {}", "IF-MIB показывает интерфейсов ONU: {1}, а таблица ONU дала ONU для {2} из них: нет для {3}"),
    ("IF-MIB lists {} ONU interfaces but the ONU table gave an ONU for {} of them: none for {}", "IF-MIB показывает интерфейсов ONU: {1}, а таблица ONU дала ONU для {2} из них: нет для {3}"),
    ("{} and {} more", "{1} и ещё {2}"),
    ("{s} on ifIndex {}: no such port in IF-MIB", "{1} на `ifIndex` {2}: такого порта нет в IF-MIB"),
    ("{s} on ifIndex {}: no such port in IF-MIB; placed on port {}, decoded from the ifIndex", "{1} на `ifIndex` {2}: такого порта нет в IF-MIB; отнесены к порту {3}, вычисленному из `ifIndex`"),
    ("{s} on ponId {}: not a PON port id", "{1} на `ponId` {2}: это не id PON-порта"),
    ("{s} on ifIndex {}: no ONU interface of that name in IF-MIB", "{1} на `ifIndex` {2}: в IF-MIB нет интерфейса ONU с таким именем"),
    ("{s} with index {}: cannot decode", "{1} с индексом {2}: не расшифровать"),
    ("{s} on index {}: not a packed ONU index", "{1} с индексом {2}: это не упакованный индекс ONU"),
    ("{s} without a PON channel or ONU number: index {}", "{1} без PON-канала или номера ONU: индекс {2}"),
    ("none of the {} online ONU has an optics reading: the device answers none of its per-ONU optics ({}), as firmware without them does; their optics are null", "ни у одной из {1} ONU в сети нет оптических показаний: устройство не отвечает ни на один столбец оптики ONU ({2}), как прошивка без них; их оптика — `null`"),
    ("none of the {} online ONUs has an optics reading: the device answers none of its per-ONU optics ({}), as firmware without them does; their optics are null", "ни у одной из {1} ONU в сети нет оптических показаний: устройство не отвечает ни на один столбец оптики ONU ({2}), как прошивка без них; их оптика — `null`"),
    ("{s} without a serial: index {}", "{1} без серийного номера: индекс {2}"),
    ("1 ONU row", "1 строка ONU"),
    ("{} ONU rows", "строк ONU: {1}"),
    // Outages (actors/src/outages, src/api/splitters.rs, src/api/placements.rs).
    ("feeder fibre of PON port {}", "магистральное волокно PON-порта {1}"),
    ("fibre at splitter {}", "волокно у сплиттера {1}"),
    ("power behind splitter {}", "питание за сплиттером {1}"),
    ("power at {}", "питание по адресу {1}"),
    ("power on PON port {}", "питание на PON-порту {1}"),
    ("OLT {} offline", "OLT {1} недоступен"),
    ("OLT {} port {}: {} of {} ONUs behind splitter {} went down with LOS", "OLT {1}, порт {2}: {3} из {4} ONU за сплиттером {5} пропали с LOS"),
    ("OLT {} port {}: {} ONUs lost power ({s})", "OLT {1}, порт {2}: ONU без питания: {3} ({4})"),
    ("OLT {} is offline: its {} ONUs are unreachable", "OLT {1} недоступен: его ONU ({2}) не видны"),
    ("outage {} ended: {s}", "авария {1} закончилась: {2}"),
    ("no splitter with id {}", "нет сплиттера с id {1}"),
    ("no outage with id {}", "нет аварии с id {1}"),
    ("no alarm with id {}", "нет тревоги с id {1}"),
    ("alarm {} was acknowledged by `{}` at {}", "тревогу {1} уже подтвердил `{2}` в {3}"),
    ("OLT {} already has a splitter named `{}`", "у OLT {1} уже есть сплиттер `{2}`"),
    ("field `{}`: no OLT with id {}", "поле `{1}`: нет OLT с id {2}"),
    ("field `{}`: no splitter with id {}", "поле `{1}`: нет сплиттера с id {2}"),
    ("field `ponPort`: OLT {} has no port {} (its ports: {})", "поле `ponPort`: у OLT {1} нет порта {2} (его порты: {3})"),
    ("field `parentId`: splitter {} must be a first-level splitter of OLT {} port {}", "поле `parentId`: сплиттер {1} должен быть сплиттером первого уровня OLT {2}, порт {3}"),
    ("field `splitterId`: {s}", "поле `splitterId`: {1}"),
    ("splitter {} is on OLT {} port {}, the ONU on OLT {} port {}", "сплиттер {1} на OLT {2}, порт {3}, а ONU на OLT {4}, порт {5}"),
    ("field `{}` must be between -{} and {}", "поле `{1}` должно быть от -{2} до {3}"),
    ("splitters {} hang under splitter {}; remove them first", "под сплиттером {2} висят сплиттеры {1}; сначала удалите их"),
    ("splitter {} `{}` is declared in the inventory file; remove it there and reload", "сплиттер {1} `{2}` объявлен в файле инвентаря; удалите его там и перечитайте файл"),
    ("{} of {} lines cannot be applied, so none was: {}", "строк, которые нельзя применить: {1} из {2}, поэтому не применена ни одна: {3}"),
    ("the CSV is not UTF-8 text", "CSV — не текст UTF-8"),
    ("each line must be two fields, ONU and splitter: {}", "в каждой строке должно быть два поля, ONU и сплиттер: {1}"),
    ("line {}: {} fields", "строка {1}: полей {2}"),
    ("the CSV has no placement lines: send `ONU,SPLITTER` lines", "в CSV нет строк размещения: пришлите строки `ONU,SPLITTER`"),
    ("the CSV cannot be read: {}", "CSV не читается: {1}"),
    ("the CSV has more than {} lines; split it", "в CSV больше {1} строк; разделите его"),
    // Events (actors/src/events, src/api/provisioning_actions.rs).
    ("OLT {}: a backup stored a new running-config version", "OLT {1}: резервная копия сохранила новую версию конфигурации"),
    ("OLT {} port {}: unconfigured ONU {} appeared", "OLT {1}, порт {2}: появилась ненастроенная ONU {3}"),
    ("ONU {} is back online", "ONU {1} снова в сети"),
    ("OLT {}: {} of {} ONUs on port {} went down with LOS (likely fibre cut)", "OLT {1}: {2} из {3} ONU на порту {4} пропали с LOS (вероятно, обрыв волокна)"),
    ("OLT {} went from {} to {}", "OLT {1} перешёл из {2} в {3}"),
    ("ONU {} went offline ({})", "ONU {1} вышла из сети ({2})"),
    ("ONU {}: optics level {} -> {}", "ONU {1}: уровень оптики {2} → {3}"),
    ("СЗО {} is down: {s}", "СЗО {1} недоступен: {2}"),
    ("СЗО {} is up: {s}", "СЗО {1} снова доступен: {2}"),
    ("OLT {} port {}: ONU {} ({}) authorised", "OLT {1}, порт {2}: ONU {3} ({4}) авторизована"),
    ("OLT {} port {}: ONU {} ({}) removed", "OLT {1}, порт {2}: ONU {3} ({4}) удалена"),
    // MACs behind ONUs (actors/src/macs.rs, actors/src/olt/mac_reads.rs).
    ("`{}` is not a MAC address: write it as `aa:bb:cc:dd:ee:ff`, `AA-BB-CC-DD-EE-FF`, `aabb.ccdd.eeff` or `aabbccddeeff`", "`{1}` — не MAC-адрес: пишите `aa:bb:cc:dd:ee:ff`, `AA-BB-CC-DD-EE-FF`, `aabb.ccdd.eeff` или `aabbccddeeff`"),
    ("`{}` has {} hex digits: a MAC has 12, a prefix at least 6", "в `{1}` шестнадцатеричных цифр: {2}; в MAC-адресе их 12, в начале адреса — не меньше 6"),
    ("OLT {} already has {} MAC reads waiting, as many as its budget of {} requests a second allows", "у OLT {1} уже ждут {2} чтений MAC-адресов — столько, сколько позволяет его бюджет в {3} запросов в секунду"),
    ("no way to read the MACs behind an ONU is known for the {} layout", "для раскладки {1} неизвестен способ прочитать MAC-адреса за ONU"),
    ("OLT {} does not show its MACs on the command line", "OLT {1} не показывает MAC-адреса в командной строке"),
    ("cannot record the MACs: {}", "не удалось записать MAC-адреса: {1}"),
    ("MAC {} moved from ONU {} to ONU {} (VLAN {})", "MAC-адрес {1} переместился с ONU {2} на ONU {3} (VLAN {4})"),
    ("MAC {} moved from ONU {} to ONU {}", "MAC-адрес {1} переместился с ONU {2} на ONU {3}"),
    ("PON port {} of OLT {} is saturated: upstream at {}% of its capacity", "PON-порт {1} OLT {2} перегружен: восходящий поток — {3}% ёмкости"),
    ("PON port {} of OLT {} is saturated: downstream at {}% of its capacity", "PON-порт {1} OLT {2} перегружен: нисходящий поток — {3}% ёмкости"),
    ("PON port {} of OLT {} is no longer saturated (upstream at {}%)", "PON-порт {1} OLT {2} больше не перегружен (восходящий поток — {3}%)"),
    ("PON port {} of OLT {} is no longer saturated (downstream at {}%)", "PON-порт {1} OLT {2} больше не перегружен (нисходящий поток — {3}%)"),
];

/// The Russian lead of an error the book has no sentence for, by its code.
fn lead(code: &str) -> &'static str {
    match code {
        "INVALID_PARAMETER" => "Неверный параметр",
        "INVALID_BODY" => "Неверное тело запроса",
        "UNAUTHORIZED" => "Нет доступа",
        "IP_NOT_ALLOWED" => "Адрес не разрешён",
        "FORBIDDEN" => "Запрещено",
        "NOT_FOUND" => "Не найдено",
        "METHOD_NOT_ALLOWED" => "Метод не разрешён",
        "NOT_ACCEPTABLE" => "Нет подходящего типа ответа",
        "CONFLICT" => "Конфликт",
        "INVALID_INVENTORY" => "Неверный инвентарь",
        "RATE_LIMITED" => "Слишком много запросов",
        "PAYLOAD_TOO_LARGE" => "Слишком большое тело запроса",
        "UNSUPPORTED_MEDIA_TYPE" => "Неподдерживаемый тип тела запроса",
        "DEVICE_ERROR" => "Устройство ответило ошибкой",
        "DEVICE_UNAVAILABLE" => "Устройство недоступно",
        "DEVICE_TIMEOUT" => "Устройство не ответило вовремя",
        "NOT_SUPPORTED" => "Не поддерживается",
        "NO_QUORUM" => "Нет большинства участников кластера",
        _ => "Ошибка",
    }
}

/// The longest sentence the book translates, in bytes. The service's own sentences are a
/// few hundred bytes, their values cut to 64 characters ([`crate::http::query::echo`]);
/// a longer one is not translated but quoted after a Russian lead, cut to this length.
pub(super) const MOST_TRANSLATED: usize = 4096;

/// How deep sentences nest in the book's (a parameter's reason, its variant's list, the
/// list's alternatives): a sentence nested deeper keeps its English.
const DEEPEST: usize = 4;

/// The book's patterns, parsed once.
fn book() -> &'static [(Pattern<'static>, &'static str)] {
    static BOOK: std::sync::OnceLock<Vec<(Pattern<'static>, &'static str)>> =
        std::sync::OnceLock::new();
    BOOK.get_or_init(|| {
        PHRASES
            .iter()
            .map(|(english, russian)| (Pattern::parse(english), *russian))
            .collect()
    })
}

/// An error's message in Russian: its sentence translated, else the code's lead and the
/// message quoted as it came (a device's own words, a sentence the book lacks), cut to
/// [`MOST_TRANSLATED`] bytes.
pub(super) fn error_message(code: &str, message: &str) -> String {
    translate(message).unwrap_or_else(|| {
        let mut end = message.len().min(MOST_TRANSLATED);
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        let more = if end < message.len() { "…" } else { "" };
        format!("{}: «{}{more}»", lead(code), &message[..end])
    })
}

/// `sentence` in Russian, or `None` when no pattern of the book fits it or it is longer
/// than [`MOST_TRANSLATED`].
pub(super) fn translate(sentence: &str) -> Option<String> {
    (sentence.len() <= MOST_TRANSLATED).then(|| translate_within(sentence, DEEPEST))?
}

/// `sentence` in Russian, its nested sentences translated `depth` levels down at most.
/// Each level costs one pass of the sentence per pattern not ruled out by its anchors.
fn translate_within(sentence: &str, depth: usize) -> Option<String> {
    let quotations = Quotations::of(sentence);
    let (russian, holes) = book()
        .iter()
        .filter_map(|(pattern, russian)| {
            let holes = pattern.fit(&quotations)?;
            Some((pattern.fixed_length, russian, holes))
        })
        .max_by_key(|(fixed, ..)| *fixed)
        .map(|(_, russian, holes)| (russian, holes))?;
    let values: Vec<String> = holes
        .into_iter()
        .map(|(range, nested)| {
            let value = &sentence[range];
            let translated = (nested && depth > 1)
                .then(|| translate_within(value, depth - 1))
                .flatten();
            translated.unwrap_or_else(|| value.to_string())
        })
        .collect();
    Some(fill(russian, &values))
}

/// `russian` with each `{n}` replaced by the n-th value (one pass: a value that holds
/// braces stays as it is).
fn fill(russian: &str, values: &[String]) -> String {
    let mut out = String::with_capacity(russian.len() + 32);
    let mut rest = russian;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let digits = after.find('}').map(|end| &after[..end]);
        match digits.and_then(|d| d.parse::<usize>().ok().map(|n| (d.len(), n))) {
            Some((len, n)) if (1..=values.len()).contains(&n) => {
                out.push_str(&values[n - 1]);
                rest = &after[len + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests;
